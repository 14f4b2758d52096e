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

import (
	"maps"
	"slices"
	"time"
)

// Instance state names and the codes EC2 reports with them.
const (
	StatePending      = "pending"
	StateRunning      = "running"
	StateShuttingDown = "shutting-down"
	StateTerminated   = "terminated"
	StateStopping     = "stopping"
	StateStopped      = "stopped"
)

// stateCodes are EC2's documented InstanceState codes (the low byte).
var stateCodes = map[string]int{
	StatePending: 0, StateRunning: 16, StateShuttingDown: 32,
	StateTerminated: 48, StateStopping: 64, StateStopped: 80,
}

// MetadataOptions are an instance's IMDS settings.
type MetadataOptions struct {
	// HTTPTokens is "optional" or "required".
	HTTPTokens string
	// HopLimit is the PUT response hop limit, 1..64.
	HopLimit int
	// HTTPEndpoint is "enabled" or "disabled".
	HTTPEndpoint string
	// InstanceMetadataTags is "enabled" or "disabled".
	InstanceMetadataTags string
	// HTTPProtocolIPv6 is "enabled" or "disabled" (the IMDS IPv6 endpoint);
	// "" means "disabled".
	HTTPProtocolIPv6 string
}

// BlockDevice is one EBS volume attached to an instance.
type BlockDevice struct {
	// DeviceName is e.g. "/dev/xvda".
	DeviceName string
	// VolumeID is the attached volume.
	VolumeID string
	// DeleteOnTermination deletes the volume when the instance terminates.
	DeleteOnTermination bool
	// AttachTime is when the volume was attached.
	AttachTime time.Time
}

// InstanceRecord is a snapshot of one emulated instance. Out-of-band edits
// go through Sim.ModifyInstance.
type InstanceRecord struct {
	ID            string
	ReservationID string
	// State is one of the State* constants.
	State string
	// StateReasonCode and StateReasonMessage fill stateReason, e.g.
	// "Client.UserInitiatedShutdown".
	StateReasonCode    string
	StateReasonMessage string
	// StateTransitionReason fills the reason element, e.g. "User initiated (…)".
	StateTransitionReason string
	InstanceType          string
	ImageID               string
	Architecture          string
	SubnetID              string
	VPCID                 string
	AZ                    string
	SecurityGroupIDs      []string
	Tags                  map[string]string
	ClientToken           string
	KeyName               string
	// UserData is the decoded (raw) user data.
	UserData              []byte
	DisableAPITermination bool
	MetadataOptions       MetadataOptions
	Monitoring            bool
	// IAMInstanceProfileARN is the associated profile's ARN, or "".
	IAMInstanceProfileARN string
	RootDeviceName        string
	RootVolumeID          string
	BlockDevices          []BlockDevice
	LaunchTime            time.Time
	PrivateIP             string
	PublicIP              string
	PrivateDNSName        string
	PublicDNSName         string
	NetworkInterfaceID    string
	MACAddress            string
	AmiLaunchIndex        int
	// Spot is true for instances launched with InstanceMarketOptions spot.
	Spot bool
	// SpotInstanceType is "one-time" or "persistent" for spot instances.
	SpotInstanceType string
	// SpotInterruptionBehavior is "terminate", "stop" or "hibernate".
	SpotInterruptionBehavior string
	SpotMaxPrice             string
	SpotRequestID            string
	// InstanceOptions are the CPU, credit, hibernation, stop, shutdown,
	// maintenance and hostname settings (lifecycle_options.go).
	InstanceOptions
	// Placement is where the instance runs beyond its subnet: placement
	// group, partition, tenancy and Dedicated Host (see launchplacement.go).
	Placement InstancePlacement
	// CapacityReservation is the instance's Capacity Reservation targeting
	// and the reservation it uses (see capacity_targeting.go).
	CapacityReservation InstanceCapacityReservation
}

// clone deep-copies the record so snapshots never alias live state.
func (r InstanceRecord) clone() InstanceRecord {
	r.SecurityGroupIDs = slices.Clone(r.SecurityGroupIDs)
	r.Tags = maps.Clone(r.Tags)
	r.UserData = slices.Clone(r.UserData)
	r.BlockDevices = slices.Clone(r.BlockDevices)
	return r
}

// instance is the live state behind an InstanceRecord.
type instance struct {
	InstanceRecord
	// since is when the current state was entered; lifecycle timers run from it.
	since time.Time
	// visibleAt is when DescribeInstances starts returning the instance.
	visibleAt time.Time
	// seq orders instances by launch for paging tokens.
	seq int
	// publicOnStart remembers whether a (re)started instance gets a public IP.
	publicOnStart bool
}

// advance moves every instance along its lifecycle to the current time.
// Timers chain from the moment the previous state was entered, not from the
// request, so the result does not depend on how often clients poll.
func (s *Sim) advance() {
	now := s.now()
	for _, id := range slices.Clone(s.order) {
		in := s.instances[id]
		s.interruptDue(in, now)
		for s.step(in, now) {
		}
		if in.State == StateTerminated && !now.Before(in.since.Add(s.cfg.TerminatedRetention)) {
			s.forget(id)
		}
	}
	s.advanceVolumes(now)
}

// step performs at most one due transition and reports whether it did.
func (s *Sim) step(in *instance, now time.Time) bool {
	var next string
	var d time.Duration
	switch in.State {
	case StatePending:
		next, d = StateRunning, s.cfg.PendingDuration
	case StateStopping:
		next, d = StateStopped, s.cfg.StoppingDuration
	case StateShuttingDown:
		next, d = StateTerminated, s.cfg.ShuttingDownDuration
	default:
		return false
	}
	at := in.since.Add(d)
	if now.Before(at) {
		return false
	}
	s.enterState(in, next, at)
	return true
}

// enterState records a transition and applies its side effects.
func (s *Sim) enterState(in *instance, state string, at time.Time) {
	in.State, in.since = state, at
	switch state {
	case StateRunning:
		in.StateReasonCode, in.StateReasonMessage, in.StateTransitionReason = "", "", ""
	case StateStopped:
		if !keepsStopReason(in) {
			in.StateReasonCode = "Client.UserInitiatedShutdown"
			in.StateReasonMessage = "Client.UserInitiatedShutdown: User initiated shutdown"
		}
		// A stopped instance keeps its private IP but releases its public one,
		// unless that is an Elastic IP.
		s.releaseAutoPublicIP(in)
	case StateTerminated:
		if !keepsStopReason(in) {
			in.StateReasonCode = "Client.UserInitiatedShutdown"
			in.StateReasonMessage = "Client.UserInitiatedShutdown: User initiated shutdown"
		}
		in.PublicIP, in.PublicDNSName = "", ""
		s.releaseTerminated(in)
		s.releaseNetwork(in)
	}
	s.publishState(in, at)
}

// releaseTerminated deletes DeleteOnTermination volumes, detaches the
// others and drops the IAM profile association, as EC2 does at termination.
func (s *Sim) releaseTerminated(in *instance) {
	var kept []BlockDevice
	for _, bd := range in.BlockDevices {
		v := s.volumes[bd.VolumeID]
		if v == nil {
			continue
		}
		if bd.DeleteOnTermination {
			s.deleteVolume(bd.VolumeID)
			continue
		}
		v.Attachment = nil
		v.State = "available"
		kept = append(kept, bd)
	}
	// EC2 keeps showing the mappings of deleted volumes until the instance
	// disappears; we keep only the survivors so DescribeVolumes stays consistent.
	in.BlockDevices = kept
	for id, a := range s.associations {
		if a.instanceID == in.ID {
			delete(s.associations, id)
		}
	}
	in.IAMInstanceProfileARN = ""
}

// forget removes an instance whose terminated retention has expired.
func (s *Sim) forget(id string) {
	delete(s.instances, id)
	s.order = slices.DeleteFunc(s.order, func(x string) bool { return x == id })
}

// userTransition starts a user-initiated transition (stop or terminate).
func (s *Sim) userTransition(in *instance, state string) {
	now := s.now()
	in.State, in.since = state, now
	in.StateTransitionReason = "User initiated (" + now.Format("2006-01-02 15:04:05 GMT") + ")"
	in.StateReasonCode = "Client.UserInitiatedShutdown"
	in.StateReasonMessage = "Client.UserInitiatedShutdown: User initiated shutdown"
	s.publishState(in, now)
	// Like pending, the transitional state is always reported once; with a
	// zero duration it completes on the next request.
}

// Instance returns a snapshot of one instance, including instances not yet
// visible to DescribeInstances.
func (s *Sim) Instance(id string) (InstanceRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	in, ok := s.instances[id]
	if !ok {
		return InstanceRecord{}, false
	}
	return in.clone(), true
}

// Instances returns snapshots of every known instance in launch order.
func (s *Sim) Instances() []InstanceRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	out := make([]InstanceRecord, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.instances[id].clone())
	}
	return out
}

// lookupInstances resolves ids for an instance action: malformed ids fail
// first, then every unknown id is named in one NotFound error.
func (s *Sim) lookupInstances(ids []string) ([]*instance, *apiError) {
	if len(ids) == 0 {
		return nil, missingParam("InstanceId")
	}
	for _, id := range ids {
		if !instanceIDPattern.MatchString(id) {
			return nil, malformedID("InvalidInstanceID.Malformed", id, "i")
		}
	}
	var out []*instance
	var missing []string
	for _, id := range ids {
		if in, ok := s.instances[id]; ok {
			out = append(out, in)
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, instancesNotFound(missing)
	}
	return out, nil
}

// lookupInstance is lookupInstances for actions that take one InstanceId.
func (s *Sim) lookupInstance(id string) (*instance, *apiError) {
	if id == "" {
		return nil, missingParam("InstanceId")
	}
	ins, err := s.lookupInstances([]string{id})
	if err != nil {
		return nil, err
	}
	return ins[0], nil
}
