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

import "strings"

// parseCreditSpecification validates RunInstances' CreditSpecification.
// Only burstable types (T2, T3, T3a, T4g) take a credit option; EC2 refuses
// it for others with InstanceCreditSpecification.NotSupported, with the
// message seen in the wild ("The m5.large instance type does not support T2
// Unlimited."). Without one, a burstable instance gets its family's default.
func parseCreditSpecification(p params, spec *launchSpec) *apiError {
	ti, _ := lookupTypeInfo(spec.instanceType)
	v := p.str("CreditSpecification.CpuCredits")
	if v == "" {
		if ti.burstable {
			spec.options.CPUCredits = creditDefault(spec.instanceType)
		}
		return nil
	}
	v = strings.ToLower(v)
	if err := checkCPUCredits(v); err != nil {
		return err
	}
	if !ti.burstable {
		return creditsNotSupported(spec.instanceType)
	}
	spec.options.CPUCredits = v
	return nil
}

// checkCPUCredits validates a CpuCredits value. The wording is a guess.
func checkCPUCredits(v string) *apiError {
	if v != "standard" && v != "unlimited" {
		return invalidValue("Value (%s) for parameter CpuCredits is invalid. Valid values are: standard, unlimited", v)
	}
	return nil
}

// creditsNotSupported is EC2's answer to a credit option for a type that is
// not burstable.
func creditsNotSupported(instanceType string) *apiError {
	return clientErr("InstanceCreditSpecification.NotSupported", "The %s instance type does not support T2 Unlimited.", instanceType)
}

// effectiveCredits is the credit option DescribeInstanceCreditSpecifications
// reports. The API reference says that for an instance that is not a
// burstable performance instance, EC2 returns standard.
func effectiveCredits(r *InstanceRecord) string {
	ti, _ := lookupTypeInfo(r.InstanceType)
	if !ti.burstable {
		return "standard"
	}
	if r.CPUCredits != "" {
		return r.CPUCredits
	}
	return creditDefault(r.InstanceType)
}

// modifyInstanceCreditSpecification implements
// ModifyInstanceCreditSpecification. Each InstanceCreditSpecification.N is
// judged on its own: failures are listed in the unsuccessful set with one of
// the codes the API reference names (InvalidInstanceID.Malformed,
// InvalidInstanceID.NotFound, IncorrectInstanceState,
// InstanceCreditSpecification.NotSupported) and do not fail the call.
func (s *Sim) modifyInstanceCreditSpecification(p params, x *xmlBuilder) *apiError {
	items := p.items("InstanceCreditSpecification")
	if len(items) == 0 {
		return missingParam("InstanceCreditSpecification")
	}
	type failure struct{ id, code, msg string }
	var ok []string
	var failed []failure
	for _, it := range items {
		id, v := it.str("InstanceId"), strings.ToLower(it.str("CpuCredits"))
		if id == "" {
			return missingParam("InstanceCreditSpecification.InstanceId")
		}
		if err := checkCPUCredits(v); err != nil {
			return err
		}
		in, found := s.instances[id]
		switch {
		case !instanceIDPattern.MatchString(id):
			failed = append(failed, failure{id, "InvalidInstanceID.Malformed", malformedID("InvalidInstanceID.Malformed", id, "i").Message})
		case !found:
			failed = append(failed, failure{id, "InvalidInstanceID.NotFound", instancesNotFound([]string{id}).Message})
		case in.State == StateTerminated || in.State == StateShuttingDown:
			failed = append(failed, failure{id, "IncorrectInstanceState", "The instance '" + id + "' is not in a state from which it can be modified."})
		default:
			if ti, _ := lookupTypeInfo(in.InstanceType); !ti.burstable {
				failed = append(failed, failure{id, "InstanceCreditSpecification.NotSupported", creditsNotSupported(in.InstanceType).Message})
				continue
			}
			in.CPUCredits = v
			ok = append(ok, id)
		}
	}
	x.open("successfulInstanceCreditSpecificationSet")
	for _, id := range ok {
		x.open("item")
		x.leaf("instanceId", id)
		x.close("item")
	}
	x.close("successfulInstanceCreditSpecificationSet")
	x.open("unsuccessfulInstanceCreditSpecificationSet")
	for _, f := range failed {
		x.open("item")
		x.leaf("instanceId", f.id)
		x.open("error")
		x.leaf("code", f.code)
		x.leaf("message", f.msg)
		x.close("error")
		x.close("item")
	}
	x.close("unsuccessfulInstanceCreditSpecificationSet")
	return nil
}

// describeInstanceCreditSpecifications implements
// DescribeInstanceCreditSpecifications for InstanceId.N. Without ids, the
// API reference says EC2 returns the instances with the unlimited credit
// option, which is what the simulator lists (terminated ones excepted).
func (s *Sim) describeInstanceCreditSpecifications(p params, x *xmlBuilder) *apiError {
	ids := p.list("InstanceId")
	var ins []*instance
	if len(ids) > 0 {
		found, err := s.lookupInstances(ids)
		if err != nil {
			return err
		}
		ins = found
	} else {
		for _, id := range s.order {
			in := s.instances[id]
			if in.State != StateTerminated && effectiveCredits(&in.InstanceRecord) == "unlimited" {
				ins = append(ins, in)
			}
		}
	}
	x.open("instanceCreditSpecificationSet")
	for _, in := range ins {
		x.open("item")
		x.leaf("instanceId", in.ID)
		x.leaf("cpuCredits", effectiveCredits(&in.InstanceRecord))
		x.close("item")
	}
	x.close("instanceCreditSpecificationSet")
	return nil
}
