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

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

func TestOnlyAWellFormedBatchOfAFirstLaunchIsABatch(t *testing.T) {
	for value, want := range map[string]bool{
		"ec2set-abc/0/2":    true,
		"ec2set-abc/99/100": true,
		"ec2set-abc/2/2":    false, // the index is past the size
		"ec2set-abc/0/1":    false, // a batch of one is a launch alone
		"ec2set-abc/0/101":  false, // past MaxBatch
		"ec2set-abc/-1/3":   false,
		"/0/3":              false,
		"ec2set-abc/0":      false,
		"ec2set-abc/x/3":    false,
	} {
		obj := &computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{
			Annotations: map[string]string{computev1alpha1.LaunchBatchAnnotation: value}}}
		if _, got := BatchOf(obj); got != want {
			t.Errorf("%q: batch %v, want %v", value, got, want)
		}
	}
	obj := &computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{
		Annotations: map[string]string{computev1alpha1.LaunchBatchAnnotation: "ec2set-abc/1/3"}}}
	if b, ok := BatchOf(obj); !ok || b.Token != "ec2set-abc" || b.Index != 1 || b.Size != 3 || b.String() != "ec2set-abc/1/3" {
		t.Errorf("parsed %+v", b)
	}
	obj.Status.Recreations = 1
	if _, ok := BatchOf(obj); ok {
		t.Error("a replacement launch was batched: it launches alone, under its own token")
	}
}

func TestABatchLaunchesWithTheTagsEveryMemberShares(t *testing.T) {
	obj := &computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "team", UID: "u-1"}}
	obj.Spec.Tags = map[string]string{"team": "a"}
	req := BatchLaunchRequest(obj, "c-1", Batch{Token: "ec2set-abc", Index: 1, Size: 3}, "")
	if req.Count != 3 || req.ClientToken != "ec2set-abc" {
		t.Errorf("count %d, token %q", req.Count, req.ClientToken)
	}
	want := map[string]string{"team": "a", ec2.TagOwnerNamespace: "team", ec2.TagCluster: "c-1"}
	if len(req.Tags) != len(want) {
		t.Errorf("tags %v, want %v", req.Tags, want)
	}
	for k, v := range want {
		if req.Tags[k] != v {
			t.Errorf("tag %s = %q, want %q (all: %v)", k, req.Tags[k], v, req.Tags)
		}
	}
}
