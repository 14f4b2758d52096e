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

package guardrail

import (
	"strings"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// SpecViolations checks what an EC2Instance's spec names itself, before any AWS call:
// the region, instance type, key pair, instance profile, subnet, security groups and
// image owners. It gives the earliest answer; what only AWS can tell (the owner of an
// image given by ID, the VPC of a subnet, what selectors pick, what is left to EC2) is
// checked by the guarded client on the request itself.
func SpecViolations(spec *computev1alpha1.EC2InstanceSpec, g *computev1alpha1.Guardrails) []Violation {
	c := &checker{}
	c.list("spec.region", spec.Region, "regions", g.Regions, GlobMatch)
	c.list("spec.instanceType", spec.InstanceType, "instanceTypes", g.InstanceTypes, GlobMatch)
	c.list("spec.keyName", spec.KeyName, "keyNames", g.KeyNames, GlobMatch)
	c.list("spec.iamInstanceProfile", spec.IAMInstanceProfile, "instanceProfiles", g.InstanceProfiles, ProfileMatch)
	c.list("spec.subnetId", spec.SubnetID, "subnetIds", g.SubnetIDs, GlobMatch)
	for _, id := range spec.SecurityGroupIDs {
		c.list("spec.securityGroupIds", id, "securityGroupIds", g.SecurityGroupIDs, GlobMatch)
	}
	if sel := spec.ImageSelector; sel != nil {
		for _, owner := range sel.Owners {
			c.list("spec.imageSelector.owners", owner, "imageOwners", g.ImageOwners, GlobMatch)
		}
	}
	if strings.HasPrefix(spec.ImageID, "resolve:ssm:") && !ssmImageAllowed(g.ImageOwners, spec.ImageID) {
		c.add(Violation{Field: "spec.imageId", Value: spec.ImageID, Rule: "imageOwners", Allowed: g.ImageOwners})
	}
	return c.out
}

// ssmImageAllowed says whether a resolve:ssm: image passes an image owner rule. EC2
// resolves the parameter at launch, so its image's owner is not known before; only the
// public parameters under /aws/service/, which name Amazon's images, pass, and only
// when amazon is allowed.
func ssmImageAllowed(owners []string, imageID string) bool {
	if owners == nil {
		return true
	}
	ssm, _ := strings.CutPrefix(imageID, "resolve:ssm:")
	return strings.HasPrefix(ssm, "/aws/service/") && OwnerAllowed(owners, imageOfAmazon, "")
}
