/*
Copyright 2026 The ec2-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

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
