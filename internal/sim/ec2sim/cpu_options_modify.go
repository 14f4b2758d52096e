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

// modifyInstanceCpuOptions implements ModifyInstanceCpuOptions. The API reference:
// "The instance must be in a Stopped state before you make changes", and the values
// follow the same rules as CpuOptions at launch (both given, supported by the type,
// each one the type lists). The state error's code and message are our guess: the
// reference does not name them; IncorrectInstanceState is EC2's code for an action in
// the wrong state.
func (s *Sim) modifyInstanceCpuOptions(p params, x *xmlBuilder) *apiError {
	in, err := s.lookupInstance(p.str("InstanceId"))
	if err != nil {
		return err
	}
	if in.State != StateStopped {
		return clientErr("IncorrectInstanceState", "The instance '%s' is not in the 'stopped' state.", in.ID)
	}
	spec := &launchSpec{instanceType: in.InstanceType}
	if err := parseCPUOptions(p, true, spec); err != nil {
		return err
	}
	in.CoreCount, in.ThreadsPerCore = spec.options.CoreCount, spec.options.ThreadsPerCore
	x.leaf("instanceId", in.ID)
	x.intLeaf("coreCount", in.CoreCount)
	x.intLeaf("threadsPerCore", in.ThreadsPerCore)
	return nil
}
