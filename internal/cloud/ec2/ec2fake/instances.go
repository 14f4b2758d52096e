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

package ec2fake

import (
	"context"
	"reflect"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// RunInstance launches a pending instance, or, for a client token used before, answers
// as EC2 does: the same instance for the same request, IdempotentParameterMismatch
// for another request, and IdempotentInstanceTerminated once that instance is
// shutting down or terminated.
func (f *Fake) RunInstance(_ context.Context, req ec2.LaunchRequest) (*ec2.Instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("RunInstance", req.ClientToken); err != nil {
		return nil, err
	}
	if id, ok := f.tokens[req.ClientToken]; ok && req.ClientToken != "" {
		return f.repeatedLaunch(id, req)
	}
	in, err := f.launch(req)
	if err != nil {
		return nil, err
	}
	out := cloneInstance(in.Instance)
	return &out, nil
}

// repeatedLaunch answers a RunInstance whose token launched the instance id, in the
// emulator's order: a changed request is a mismatch even for a terminated instance.
func (f *Fake) repeatedLaunch(id string, req ec2.LaunchRequest) (*ec2.Instance, error) {
	in, ok := f.instances[id]
	if ok && !reflect.DeepEqual(in.req, req) {
		return nil, errorf("RunInstances", "IdempotentParameterMismatch",
			"Arguments on this idempotent request are inconsistent with arguments used in previous request(s).")
	}
	if !ok || in.State == ec2.StateShuttingDown || in.State == ec2.StateTerminated {
		return nil, errorf("RunInstances", "IdempotentInstanceTerminated",
			"The client token '%s' was used for instance '%s', which has been terminated.", req.ClientToken, id)
	}
	out := cloneInstance(in.Instance)
	return &out, nil
}

// GetInstance returns the instance, terminated ones included until Forget.
func (f *Fake) GetInstance(_ context.Context, id string) (*ec2.Instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("GetInstance", id); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, errorf("DescribeInstances", "MissingParameter", "an instance ID is required")
	}
	in, err := f.instance("DescribeInstances", id)
	if err != nil {
		return nil, err
	}
	out := cloneInstance(in.Instance)
	return &out, nil
}

// FindInstances lists the instances with the filter's token and tags (ownership tags
// in either form), terminated ones included, in launch order. Like the real client, it
// refuses an empty filter.
func (f *Fake) FindInstances(_ context.Context, filter ec2.InstanceFilter) ([]ec2.Instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("FindInstances", filter.ClientToken); err != nil {
		return nil, err
	}
	if filter.ClientToken == "" && len(filter.Tags) == 0 {
		return nil, errorf("DescribeInstances", "MissingParameter", "a client token or tags are required to look instances up")
	}
	out := []ec2.Instance{}
	for _, id := range f.order {
		in := f.instances[id]
		if filter.ClientToken != "" && in.ClientToken != filter.ClientToken {
			continue
		}
		if ec2.CarriesTags(in.Tags, filter.Tags) {
			out = append(out, cloneInstance(in.Instance))
		}
	}
	return out, nil
}

// OwnedInstances lists the live instances whose owner-namespace tag (in either form)
// is namespace and, unless name is empty, whose owner-name tag is name, in launch order.
func (f *Fake) OwnedInstances(_ context.Context, namespace, name string) ([]ec2.Instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("OwnedInstances", namespace); err != nil {
		return nil, err
	}
	out := []ec2.Instance{}
	for _, id := range f.order {
		in := f.instances[id]
		if in.State != ec2.StateShuttingDown && in.State != ec2.StateTerminated &&
			ec2.CarriesTags(in.Tags, map[string]string{ec2.TagOwnerNamespace: namespace}) &&
			(name == "" || ec2.OwnerTag(in.Tags, ec2.TagOwnerName) == name) {
			out = append(out, cloneInstance(in.Instance))
		}
	}
	return out, nil
}

// StartInstance moves a stopped instance to pending. Starting a pending or running
// instance succeeds; a stopping or terminating one is IncorrectInstanceState.
func (f *Fake) StartInstance(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("StartInstance", id); err != nil {
		return err
	}
	in, err := f.instance("StartInstances", id)
	if err != nil {
		return err
	}
	switch in.State {
	case ec2.StateStopped:
		in.State = ec2.StatePending
	case ec2.StateStopping, ec2.StateShuttingDown, ec2.StateTerminated:
		return incorrectState("StartInstances", id, "started")
	}
	return nil
}

// StopInstance moves a running instance to stopping; see stop.
func (f *Fake) StopInstance(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("StopInstance", id); err != nil {
		return err
	}
	return f.stop(id, false)
}

// HibernateInstance stops an instance launched for hibernation; others are refused
// with UnsupportedHibernationConfiguration, as EC2 does.
func (f *Fake) HibernateInstance(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("HibernateInstance", id); err != nil {
		return err
	}
	return f.stop(id, true)
}

// stop applies the emulator's StopInstances rules: stopping a stopping or stopped
// instance succeeds, a pending or terminating one is IncorrectInstanceState, and stop
// protection refuses with OperationNotPermitted.
func (f *Fake) stop(id string, hibernate bool) error {
	in, err := f.instance("StopInstances", id)
	if err != nil {
		return err
	}
	switch {
	case in.State == ec2.StatePending || in.State == ec2.StateShuttingDown || in.State == ec2.StateTerminated:
		return incorrectState("StopInstances", id, "stopped")
	case in.stopProtected && in.State == ec2.StateRunning:
		return errorf("StopInstances", "OperationNotPermitted",
			"The instance '%s' may not be stopped. Modify its 'disableApiStop' instance attribute and try again.", id)
	case hibernate && !in.HibernationConfigured:
		return errorf("StopInstances", "UnsupportedHibernationConfiguration",
			"The instance can't be hibernated because it was not configured at launch for hibernation: %s", id)
	case in.State == ec2.StateRunning:
		in.State = ec2.StateStopping
	}
	return nil
}

// TerminateInstance moves the instance to shutting-down and returns its state after
// the call. Terminating a terminating instance succeeds; a protected one is refused
// with OperationNotPermitted (awserrors.TerminationProtected).
func (f *Fake) TerminateInstance(_ context.Context, id string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("TerminateInstance", id); err != nil {
		return "", err
	}
	in, err := f.instance("TerminateInstances", id)
	if err != nil {
		return "", err
	}
	if in.State == ec2.StateShuttingDown || in.State == ec2.StateTerminated {
		return in.State, nil
	}
	if in.protected {
		return "", errorf("TerminateInstances", "OperationNotPermitted",
			"The instance '%s' may not be terminated. Modify its 'disableApiTermination' instance attribute and try again.", id)
	}
	in.State = ec2.StateShuttingDown
	return in.State, nil
}

// CancelSpotRequest succeeds for any request ID, as cancelling a cancelled request
// does; a test makes it fail with FailNext.
func (f *Fake) CancelSpotRequest(_ context.Context, requestID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.begin("CancelSpotRequest", requestID)
}

// instance returns the instance or the NotFound error EC2 answers operation with.
func (f *Fake) instance(operation, id string) (*instance, error) {
	in, ok := f.instances[id]
	if !ok {
		return nil, errorf(operation, "InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", id)
	}
	return in, nil
}

// incorrectState is EC2's IncorrectInstanceState for a call the state does not allow.
func incorrectState(operation, id, verb string) error {
	return errorf(operation, "IncorrectInstanceState", "This instance '%s' is not in a state from which it can be %s.", id, verb)
}
