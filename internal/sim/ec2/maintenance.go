package ec2sim

// modifyInstanceMaintenanceOptions implements ModifyInstanceMaintenanceOptions
// for AutoRecovery (default or disabled). The change applies at once; the
// response echoes the instance's settings, as EC2's does. A terminated
// instance is refused with IncorrectInstanceState (our guess at the code EC2
// uses; the API reference lists no action-specific errors).
func (s *Sim) modifyInstanceMaintenanceOptions(p params, x *xmlBuilder) *apiError {
	in, err := s.lookupInstance(p.str("InstanceId"))
	if err != nil {
		return err
	}
	if in.State == StateTerminated || in.State == StateShuttingDown {
		return clientErr("IncorrectInstanceState", "The instance '%s' is not in a valid state for this operation.", in.ID)
	}
	if v := p.str("AutoRecovery"); v != "" {
		if err := checkAutoRecovery(v); err != nil {
			return err
		}
		in.AutoRecovery = v
	}
	x.leaf("instanceId", in.ID)
	x.leaf("autoRecovery", in.autoRecovery())
	return nil
}
