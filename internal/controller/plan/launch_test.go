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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// The launch sends what the launch record chose, not what the selectors would pick
// now: a retried launch must send the same parameters under the same token.
func TestLaunchRequestSendsWhatTheLaunchRecordChose(t *testing.T) {
	obj := &computev1alpha1.EC2Instance{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a", UID: "uid-1"},
		Spec: computev1alpha1.EC2InstanceSpec{
			InstanceType:          "t3.micro",
			ImageSelector:         &computev1alpha1.ImageSelector{Owners: []string{"self"}},
			SubnetSelector:        &computev1alpha1.SubnetSelector{Tags: map[string]string{"tier": "web"}},
			SecurityGroupSelector: &computev1alpha1.SecurityGroupSelector{Tags: map[string]string{"tier": "web"}},
			RootVolume:            &computev1alpha1.RootVolume{SizeGiB: ptr.To[int32](20), IOPS: ptr.To[int32](3000)},
			Spot:                  &computev1alpha1.SpotOptions{MaxPrice: "0.01"},
		},
		Status: computev1alpha1.EC2InstanceStatus{ImageID: "ami-chosen", SubnetID: "subnet-chosen", SecurityGroupIDs: []string{"sg-chosen"}},
	}
	req := LaunchRequest(obj, "cluster-1", "token-1", "#!/bin/sh")
	if req.ImageID != "ami-chosen" || req.SubnetID != "subnet-chosen" || len(req.SecurityGroupIDs) != 1 || req.SecurityGroupIDs[0] != "sg-chosen" {
		t.Errorf("image %s subnet %s groups %v: want what status recorded", req.ImageID, req.SubnetID, req.SecurityGroupIDs)
	}
	if req.ClientToken != "token-1" || req.UserData != "#!/bin/sh" {
		t.Errorf("token %q user data %q", req.ClientToken, req.UserData)
	}
	if rv := req.RootVolume; rv == nil || rv.SizeGiB != 20 || rv.IOPS != 3000 || rv.Throughput != 0 {
		t.Errorf("root volume %+v, want 20 GiB, 3000 IOPS, throughput unset", rv)
	}
	if req.Spot == nil || req.Spot.MaxPrice != "0.01" {
		t.Errorf("spot %+v", req.Spot)
	}
	if req.Tags[ec2.TagOwnerUID] != "uid-1" || req.Tags[ec2.TagCluster] != "cluster-1" {
		t.Errorf("tags at launch %v lack the ownership tags", req.Tags)
	}
	if req := LaunchRequest(&computev1alpha1.EC2Instance{}, "c", "t", ""); req.RootVolume != nil {
		t.Errorf("a spec without rootVolume overrides the image's: %+v", req.RootVolume)
	}
}
