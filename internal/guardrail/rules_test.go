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
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

func TestGuardrailPatternsMatchValuesProfilesAndImageOwners(t *testing.T) {
	for _, tc := range []struct {
		name           string
		match          func(p, v string) bool
		pattern, value string
		want           bool
	}{
		{"exact", GlobMatch, "t3.micro", "t3.micro", true},
		{"star", GlobMatch, "t3.*", "t3.large", true},
		{"star does not widen the prefix", GlobMatch, "t3.*", "t3a.large", false},
		{"star spans slashes", GlobMatch, "arn:aws:iam::*:instance-profile/ec2-operator/*", "arn:aws:iam::111122223333:instance-profile/ec2-operator/team/web", true},
		{"dots are literal", GlobMatch, "t3.micro", "t3xmicro", false},
		{"profile name", ProfileMatch, "web-*", "web-frontend", true},
		{"profile name of an ARN", ProfileMatch, "web-*", "arn:aws:iam::111122223333:instance-profile/apps/web-frontend", true},
		{"ARN pattern against a name", ProfileMatch, "arn:aws:iam::*:instance-profile/*", "web-frontend", false},
		{"ARN pattern against another path", ProfileMatch, "arn:aws:iam::*:instance-profile/ec2-operator/*", "arn:aws:iam::1:instance-profile/admin", false},
	} {
		if got := tc.match(tc.pattern, tc.value); got != tc.want {
			t.Errorf("%s: %q against %q = %v, want %v", tc.name, tc.value, tc.pattern, got, tc.want)
		}
	}
	amazon := ec2.Image{ID: "ami-1", OwnerID: "137112412989", OwnerAlias: "amazon"}
	own := ec2.Image{ID: "ami-2", OwnerID: "111122223333"}
	for _, tc := range []struct {
		allowed []string
		image   ec2.Image
		want    bool
	}{
		{[]string{"amazon"}, amazon, true},
		{[]string{"137112412989"}, amazon, true},
		{[]string{"self"}, amazon, false},
		{[]string{"self"}, own, true},
		{[]string{"amazon", "aws-marketplace"}, own, false},
		{[]string{"*"}, own, true},
	} {
		if got := OwnerAllowed(tc.allowed, tc.image, "111122223333"); got != tc.want {
			t.Errorf("owners %v, image of %s/%s: %v, want %v", tc.allowed, tc.image.OwnerID, tc.image.OwnerAlias, got, tc.want)
		}
	}
}
