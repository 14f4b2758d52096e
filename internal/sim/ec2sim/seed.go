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

import "time"

// seedEpoch is the fixed creation date of seeded images, so output does not
// depend on when the simulator started.
var seedEpoch = time.Date(2025, 1, 15, 0, 0, 0, 0, time.UTC)

// seedDefaults installs the well-known resources every Sim starts with.
func (s *Sim) seedDefaults() {
	for i, id := range DefaultSubnetIDs {
		s.putSubnet(id, s.azs()[i], true)
	}
	s.putGroup(&SecurityGroup{ID: DefaultSecurityGroupID, Name: "default", Description: "default VPC security group", VPCID: DefaultVPCID})
	s.putGroup(&SecurityGroup{ID: WebSecurityGroupID, Name: "web", Description: "web servers", VPCID: DefaultVPCID})
	s.putImage(&Image{
		ID: DefaultImageID, Name: "al2023-ami-2023.6.20250115.0-kernel-6.1-x86_64",
		Description:  "Amazon Linux 2023 AMI 2023.6.20250115.0 x86_64 HVM kernel-6.1",
		Architecture: "x86_64", OwnerID: amazonOwnerID, OwnerAlias: "amazon",
		RootDeviceName: "/dev/xvda", SnapshotID: "snap-0a1b2c3d4e5f60001", RootSizeGiB: 8,
		ImdsSupport: "v2.0", CreationDate: seedEpoch,
	})
	s.putImage(&Image{
		ID: ArmImageID, Name: "al2023-ami-2023.6.20250115.0-kernel-6.1-arm64",
		Description:  "Amazon Linux 2023 AMI 2023.6.20250115.0 arm64 HVM kernel-6.1",
		Architecture: "arm64", OwnerID: amazonOwnerID, OwnerAlias: "amazon",
		RootDeviceName: "/dev/xvda", SnapshotID: "snap-0a1b2c3d4e5f60002", RootSizeGiB: 8,
		ImdsSupport: "v2.0", CreationDate: seedEpoch,
	})
	s.ssmParams[DefaultSSMParameter] = DefaultImageID
	s.ssmParams[ArmSSMParameter] = ArmImageID
	s.profiles[DefaultInstanceProfile] = true
	s.keyPairs[DefaultKeyName] = true
}

// AddInstanceProfile makes an IAM instance profile of the Sim's account exist.
func (s *Sim) AddInstanceProfile(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.profiles[name] = true
}

// AddKeyPair makes an EC2 key pair exist.
func (s *Sim) AddKeyPair(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keyPairs[name] = true
}

// profileARN is the ARN of a profile in the Sim's account.
func (s *Sim) profileARN(name string) string {
	return "arn:aws:iam::" + s.cfg.AccountID + ":instance-profile/" + name
}

// profileID is a stable IAM-style unique id for a profile name.
func profileID(name string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	id := []byte("AIPA")
	for len(id) < 21 {
		id = append(id, alphabet[h%32])
		h = h/32 + 0x9e3779b97f4a7c15
	}
	return string(id)
}
