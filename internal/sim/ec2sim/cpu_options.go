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
	"strconv"
	"strings"
)

// parseCPUOptions validates RunInstances' CpuOptions against the instance
// type, following the User Guide's "Rules for specifying CPU options": both
// the core count and the threads per core must be given, the type must
// support CPU options (T2, previous generation and bare metal types do not),
// and each value must be one the type lists in DescribeInstanceTypes'
// validCores and validThreadsPerCore.
func parseCPUOptions(p params, present bool, spec *launchSpec) *apiError {
	if !present {
		return nil
	}
	if !p.has("CoreCount") || !p.has("ThreadsPerCore") {
		// EC2 sends this MissingParameter message for ModifyInstanceCpuOptions;
		// we assume RunInstances words it the same way.
		return missingParamMessage("When specifying CpuOptions you must specify both CoreCount and ThreadsPerCore.")
	}
	cores, okC := p.integer("CoreCount")
	threads, okT := p.integer("ThreadsPerCore")
	ti, _ := lookupTypeInfo(spec.instanceType)
	if len(ti.validCores) == 0 {
		// The code and message are our guess: the API reference does not name
		// the error for a type without CPU options support.
		return clientErr("InvalidParameterCombination", "The instance type '%s' does not support specifying CPU options.", spec.instanceType)
	}
	if !okC || !intListHas(ti.validCores, cores) {
		// Our guess at EC2's wording; the code is EC2's generic one.
		return invalidValue("Invalid value '%s' for CpuOptions.CoreCount. Valid values for instance type %s are: %s", p.str("CoreCount"), spec.instanceType, joinIntList(ti.validCores))
	}
	if !okT || !intListHas(ti.validThreads, threads) {
		return invalidValue("Invalid value '%s' for CpuOptions.ThreadsPerCore. Valid values for instance type %s are: %s", p.str("ThreadsPerCore"), spec.instanceType, joinIntList(ti.validThreads))
	}
	spec.options.CoreCount, spec.options.ThreadsPerCore = cores, threads
	return nil
}

// effectiveCPU is the CPU options DescribeInstances reports: those chosen at
// launch, or the type's defaults.
func effectiveCPU(r *InstanceRecord) (cores, threads int) {
	if r.CoreCount > 0 {
		return r.CoreCount, r.ThreadsPerCore
	}
	ti, _ := lookupTypeInfo(r.InstanceType)
	return ti.cores, ti.threads
}

// resetForNewType applies what a type change does to the options: the User
// Guide says the CPU options "automatically change to the default CPU options
// for the new instance type".
func resetForNewType(in *instance) {
	in.CoreCount, in.ThreadsPerCore = 0, 0
}

// missingParamMessage is a MissingParameter error with a full message, for the
// cases where EC2 does not use the "must contain the parameter" wording.
func missingParamMessage(msg string) *apiError {
	return clientErr("MissingParameter", "%s", msg)
}

// intListHas reports whether list holds v.
func intListHas(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// joinIntList renders integers as "1, 2, 4".
func joinIntList(vs []int) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ", ")
}
