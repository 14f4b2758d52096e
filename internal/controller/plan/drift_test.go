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

package plan

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// TestObservedDrift checks what Observe reports against an instance with settings
// the operator's launch defaults would change: unset fields are never drift, set ones
// are named, and the immutable ones are marked as such.
func TestObservedDrift(t *testing.T) {
	inst := &ec2.Instance{ID: "i-1", State: ec2.StateRunning, InstanceType: "t3.small", ImageID: "ami-1", SubnetID: "subnet-a",
		DetailedMonitoring: true, Tags: map[string]string{"env": "prod"},
		MetadataOptions: ec2.MetadataOptions{HTTPTokens: "optional", HTTPPutResponseHopLimit: 1, HTTPEndpoint: "enabled",
			InstanceMetadataTags: "disabled", HTTPProtocolIPv6: "disabled"},
		BlockDevices: []ec2.BlockDevice{{Device: "/dev/xvda", VolumeID: "vol-1"}}}
	cases := []struct {
		name string
		spec computev1alpha1.EC2InstanceSpec
		want []string
	}{
		{"only the ID", computev1alpha1.EC2InstanceSpec{InstanceID: "i-1"}, nil},
		{"monitoring set", computev1alpha1.EC2InstanceSpec{InstanceID: "i-1", Monitoring: ptr.To(false)}, []string{"monitoring"}},
		{"imds set", computev1alpha1.EC2InstanceSpec{InstanceID: "i-1",
			MetadataOptions: &computev1alpha1.MetadataOptions{HTTPTokens: computev1alpha1.HTTPTokensRequired}}, []string{"metadataOptions"}},
		{"tags", computev1alpha1.EC2InstanceSpec{InstanceID: "i-1", Tags: map[string]string{"env": "dev", "team": "a"}},
			[]string{"tags.env: prod, spec says dev", "tags.team: missing"}},
		{"power", computev1alpha1.EC2InstanceSpec{InstanceID: "i-1", DesiredState: computev1alpha1.DesiredStateStopped}, []string{"desiredState: running"}},
		{"type", computev1alpha1.EC2InstanceSpec{InstanceID: "i-1", InstanceType: "t3.large"}, []string{"instanceType"}},
		{"immutable", computev1alpha1.EC2InstanceSpec{InstanceID: "i-1", SubnetID: "subnet-b"}, []string{"subnetId (instance has subnet-a), immutable"}},
		{"volume", computev1alpha1.EC2InstanceSpec{InstanceID: "i-1", Volumes: []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf"}}},
			[]string{"volumes[/dev/sdf]: not attached"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ObservedDrift(&computev1alpha1.EC2Instance{Spec: tc.spec}, inst, ObservedAttributes{})
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %d differences like %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("difference %d: got %q, want it to start with %q", i, got[i], w)
				}
			}
		})
	}
}
