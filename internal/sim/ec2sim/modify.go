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
	"encoding/base64"
	"sort"
	"strings"
)

// modifiableAttributes maps ModifyInstanceAttribute's structured members to
// the attribute names EC2 uses for them (and accepts in Attribute=).
var modifiableAttributes = map[string]string{
	"InstanceType":                      "instanceType",
	"DisableApiTermination":             "disableApiTermination",
	"DisableApiStop":                    "disableApiStop",
	"UserData":                          "userData",
	"GroupId":                           "groupSet",
	"SourceDestCheck":                   "sourceDestCheck",
	"EbsOptimized":                      "ebsOptimized",
	"InstanceInitiatedShutdownBehavior": "instanceInitiatedShutdownBehavior",
	"EnaSupport":                        "enaSupport",
	"BlockDeviceMapping":                "blockDeviceMapping",
}

// modifyInstanceAttribute implements ModifyInstanceAttribute. EC2 changes
// exactly one attribute per call, given either as a structured member
// (InstanceType.Value, GroupId.N, ...) or as Attribute plus Value.
func (s *Sim) modifyInstanceAttribute(p params, x *xmlBuilder) *apiError {
	in, err := s.lookupInstance(p.str("InstanceId"))
	if err != nil {
		return err
	}
	attr, value, err := requestedAttribute(p)
	if err != nil {
		return err
	}
	if in.State == StateTerminated || in.State == StateShuttingDown {
		return clientErr("IncorrectInstanceState", "The instance '%s' is not in a state from which it can be modified.", in.ID)
	}
	set, ok := attributeSetters[attr]
	if !ok {
		return invalidValue("Value (%s) for parameter attribute is invalid. Unknown attribute.", attr)
	}
	if err := set(s, in, p, value); err != nil {
		return err
	}
	x.boolLeaf("return", true)
	return nil
}

// requestedAttribute finds the one attribute a ModifyInstanceAttribute call
// changes, and how to read the new value of a member: from Member.Value, or from
// Value when the attribute is named with Attribute=. EC2 refuses a call that names
// none or several, listing them in order.
func requestedAttribute(p params) (string, func(member string) string, *apiError) {
	var attrs []string
	for member, attr := range modifiableAttributes {
		if p.hasAny(member) {
			attrs = append(attrs, attr)
		}
	}
	value := func(member string) string { return p.str(member + ".Value") }
	if a := p.str("Attribute"); a != "" {
		attrs = append(attrs, a)
		value = func(string) string { return p.str("Value") }
	}
	sort.Strings(attrs)
	switch {
	case len(attrs) == 0:
		return "", nil, missingParam("Attribute")
	case len(attrs) > 1:
		return "", nil, clientErr("InvalidParameterCombination", "Fields for multiple attribute types specified: %s", strings.Join(attrs, ", "))
	}
	return attrs[0], value, nil
}

// attributeSetter changes one attribute of in, reading the new value with value
// (or, for lists, from p), or says why EC2 would refuse.
type attributeSetter func(s *Sim, in *instance, p params, value func(string) string) *apiError

// attributeSetters are the attributes ModifyInstanceAttribute changes, by the
// name EC2 gives them.
var attributeSetters = map[string]attributeSetter{
	"instanceType":          setInstanceType,
	"disableApiTermination": setTerminationProtection,
	"userData":              setUserData,
	"groupSet":              (*Sim).setGroupSet,
	"blockDeviceMapping": func(s *Sim, in *instance, p params, _ func(string) string) *apiError {
		return s.modifyBlockDeviceMappings(in, p)
	},
	"sourceDestCheck": func(s *Sim, in *instance, _ params, value func(string) string) *apiError {
		return s.setSourceDestCheck(in, value("SourceDestCheck"))
	},
	"disableApiStop":                    setStopAttribute("disableApiStop"),
	"instanceInitiatedShutdownBehavior": setStopAttribute("instanceInitiatedShutdownBehavior"),
	// Accepted but not modelled: the operator does not manage them.
	"ebsOptimized": acceptAttribute,
	"enaSupport":   acceptAttribute,
}

// setInstanceType changes the type of a stopped instance to one of the same
// architecture, as EC2 allows.
func setInstanceType(_ *Sim, in *instance, _ params, value func(string) string) *apiError {
	t := value("InstanceType")
	arch, ok := instanceTypeArch(t)
	if !ok {
		return invalidValue("Invalid value '%s' for InstanceType.", t)
	}
	if in.State != StateStopped {
		return clientErr("IncorrectInstanceState", "The instance '%s' is not in the 'stopped' state.", in.ID)
	}
	if arch != in.Architecture {
		return invalidValue("The instance type '%s' does not support the architecture '%s' of the instance's AMI.", t, in.Architecture)
	}
	in.InstanceType = t
	resetForNewType(in)
	return nil
}

// setTerminationProtection turns termination protection on or off; EC2 refuses
// it for Spot Instances.
func setTerminationProtection(_ *Sim, in *instance, _ params, value func(string) string) *apiError {
	on := strings.EqualFold(value("DisableApiTermination"), "true")
	if on && in.Spot {
		return clientErr("InvalidParameterCombination", "You can't enable termination protection for Spot Instances.")
	}
	in.DisableAPITermination = on
	return nil
}

// setUserData replaces the user data of a stopped instance with the decoded
// base64 value, within EC2's size limit.
func setUserData(_ *Sim, in *instance, _ params, value func(string) string) *apiError {
	if in.State != StateStopped {
		return clientErr("IncorrectInstanceState", "The instance '%s' is not in the 'stopped' state.", in.ID)
	}
	data, err := base64.StdEncoding.DecodeString(value("UserData"))
	if err != nil {
		return clientErr("InvalidUserData.Malformed", "Invalid BASE64 encoding of user data.")
	}
	if len(data) > maxUserDataBytes {
		return invalidValue("User data is limited to %d bytes", maxUserDataBytes)
	}
	in.UserData = data
	return nil
}

// setGroupSet replaces the instance's security groups with known groups of its
// VPC, given as GroupId.N or as Attribute=groupSet with one Value.
func (s *Sim) setGroupSet(in *instance, p params, _ func(string) string) *apiError {
	ids := p.list("GroupId")
	if len(ids) == 0 && p.str("Attribute") == "groupSet" {
		ids = []string{p.str("Value")}
	}
	if err := s.checkGroups(ids); err != nil {
		return err
	}
	if err := s.checkGroupsInVPC(ids, in.VPCID); err != nil {
		return err
	}
	in.SecurityGroupIDs = dedupe(ids)
	return nil
}

// setStopAttribute changes attr, one of the attributes of how an instance stops.
func setStopAttribute(attr string) attributeSetter {
	return func(_ *Sim, in *instance, _ params, value func(string) string) *apiError {
		return modifyStopAttribute(in, attr, value)
	}
}

// acceptAttribute accepts a change it does not model.
func acceptAttribute(*Sim, *instance, params, func(string) string) *apiError { return nil }

// checkGroups validates security group ids, naming every unknown one.
func (s *Sim) checkGroups(ids []string) *apiError {
	var missing []string
	for _, id := range ids {
		if !groupIDPattern.MatchString(id) {
			return malformedID("InvalidGroupId.Malformed", id, "sg")
		}
		if s.groups[id] == nil {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return groupsNotFound(missing)
	}
	return nil
}

// describeInstanceAttribute implements DescribeInstanceAttribute for the
// attributes the operator reads.
func (s *Sim) describeInstanceAttribute(p params, x *xmlBuilder) *apiError {
	attr := p.str("Attribute")
	if attr == "" {
		return missingParam("Attribute")
	}
	in, err := s.lookupInstance(p.str("InstanceId"))
	if err != nil {
		return err
	}
	x.leaf("instanceId", in.ID)
	valued := func(name, v string) {
		x.open(name)
		x.leaf("value", v)
		x.close(name)
	}
	switch attr {
	case "instanceType":
		valued("instanceType", in.InstanceType)
	case "userData":
		x.open("userData")
		if len(in.UserData) > 0 {
			x.leaf("value", base64.StdEncoding.EncodeToString(in.UserData))
		}
		x.close("userData")
	case "disableApiTermination":
		valued("disableApiTermination", boolString(in.DisableAPITermination))
	case "disableApiStop":
		valued("disableApiStop", boolString(in.DisableAPIStop))
	case "rootDeviceName":
		valued("rootDeviceName", in.RootDeviceName)
	case "instanceInitiatedShutdownBehavior":
		valued("instanceInitiatedShutdownBehavior", in.shutdownBehavior())
	case "sourceDestCheck":
		valued("sourceDestCheck", boolString(s.sourceDestCheck(in)))
	case "ebsOptimized":
		valued("ebsOptimized", "false")
	case "groupSet":
		x.open("groupSet")
		for _, g := range in.SecurityGroupIDs {
			s.writeGroup(x, g)
		}
		x.close("groupSet")
	default:
		return invalidValue("Value (%s) for parameter attribute is invalid. Unknown attribute.", attr)
	}
	return nil
}

// modifyInstanceMetadataOptions implements ModifyInstanceMetadataOptions.
// The change applies at once; the response reports "pending" as EC2 does.
func (s *Sim) modifyInstanceMetadataOptions(p params, x *xmlBuilder) *apiError {
	in, err := s.lookupInstance(p.str("InstanceId"))
	if err != nil {
		return err
	}
	if in.State == StateTerminated || in.State == StateShuttingDown {
		return clientErr("IncorrectInstanceState", "The instance '%s' is not in a valid state for this operation.", in.ID)
	}
	md, err := parseMetadataOptions(p, in.MetadataOptions)
	if err != nil {
		return err
	}
	if err := checkIMDSTags(md, in.Tags); err != nil {
		return err
	}
	in.MetadataOptions = md
	x.leaf("instanceId", in.ID)
	writeMetadataOptionsState(x, "instanceMetadataOptions", md, "pending")
	return nil
}

// monitorInstances implements MonitorInstances.
func (s *Sim) monitorInstances(p params, x *xmlBuilder) *apiError {
	return s.setMonitoring(p, x, true)
}

// unmonitorInstances implements UnmonitorInstances.
func (s *Sim) unmonitorInstances(p params, x *xmlBuilder) *apiError {
	return s.setMonitoring(p, x, false)
}

// setMonitoring switches detailed monitoring. EC2 answers "pending" or
// "disabling"; the simulator completes the change immediately, so the next
// DescribeInstances shows "enabled" or "disabled".
func (s *Sim) setMonitoring(p params, x *xmlBuilder, on bool) *apiError {
	ins, err := s.lookupInstances(p.list("InstanceId"))
	if err != nil {
		return err
	}
	for _, in := range ins {
		if in.State == StateTerminated || in.State == StateShuttingDown {
			return clientErr("IncorrectInstanceState", "The instance '%s' is not in a valid state for this operation.", in.ID)
		}
	}
	x.open("instancesSet")
	for _, in := range ins {
		in.Monitoring = on
		x.open("item")
		x.leaf("instanceId", in.ID)
		x.open("monitoring")
		if on {
			x.leaf("state", "pending")
		} else {
			x.leaf("state", "disabling")
		}
		x.close("monitoring")
		x.close("item")
	}
	x.close("instancesSet")
	return nil
}

// boolString renders a bool as EC2 does.
func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
