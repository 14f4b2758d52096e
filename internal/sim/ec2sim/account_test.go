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
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// TestConfigAccountID checks that a Sim built for another account reports
// that account wherever EC2 names the owner: Reservation.ownerId, subnet and
// security group owner ids and ARNs, the owner of images the account
// registers (DescribeImages Owner "self"), and instance profile ARNs.
func TestConfigAccountID(t *testing.T) {
	const acct = "444455556666"
	sim, c := newEnv(t, Config{AccountID: acct})
	sim.AddImage("ami-0000000000000aaaa", "mine", "x86_64")

	in := basicRun()
	in.IamInstanceProfile = &types.IamInstanceProfileSpecification{Name: aws.String(DefaultInstanceProfile)}
	out, err := c.RunInstances(simtest.Ctx(t), in)
	if err != nil {
		t.Fatalf("RunInstances: %v", err)
	}
	if got := aws.ToString(out.OwnerId); got != acct {
		t.Fatalf("ownerId = %s, want %s", got, acct)
	}
	if got := aws.ToString(out.Instances[0].IamInstanceProfile.Arn); got != "arn:aws:iam::"+acct+":instance-profile/"+DefaultInstanceProfile {
		t.Fatalf("instance profile ARN = %s", got)
	}

	sn, err := c.DescribeSubnets(simtest.Ctx(t), &ec2.DescribeSubnetsInput{SubnetIds: []string{DefaultSubnetIDs[0]}})
	if err != nil || aws.ToString(sn.Subnets[0].OwnerId) != acct ||
		aws.ToString(sn.Subnets[0].SubnetArn) != "arn:aws:ec2:us-east-1:"+acct+":subnet/"+DefaultSubnetIDs[0] {
		t.Fatalf("DescribeSubnets = %+v, %v", sn, err)
	}
	sg, err := c.DescribeSecurityGroups(simtest.Ctx(t), &ec2.DescribeSecurityGroupsInput{GroupIds: []string{DefaultSecurityGroupID}})
	if err != nil || aws.ToString(sg.SecurityGroups[0].OwnerId) != acct {
		t.Fatalf("DescribeSecurityGroups = %+v, %v", sg, err)
	}
	imgs, err := c.DescribeImages(simtest.Ctx(t), &ec2.DescribeImagesInput{Owners: []string{"self"}})
	if err != nil || len(imgs.Images) != 1 || aws.ToString(imgs.Images[0].OwnerId) != acct {
		t.Fatalf("DescribeImages(self) = %+v, %v", imgs, err)
	}
}
