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

package v1alpha1_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// withIMDSTags returns a valid object that exposes its tags in instance metadata.
func withIMDSTags(name string, tags map[string]string) *v1alpha1.EC2Instance {
	o := validInstance(name)
	o.Spec.MetadataOptions = &v1alpha1.MetadataOptions{InstanceMetadataTags: v1alpha1.EndpointState("enabled")}
	o.Spec.Tags = tags
	return o
}

// With tags in instance metadata, the API refuses the tag keys EC2 refuses then, and
// keeps two tags free for the operator's ownership-tag migration.
func TestCreateRejectsTagKeysInstanceMetadataCannotCarry(t *testing.T) {
	for i, key := range []string{"team/owner", "Patch Group", "cost#center", ".", "..", "_index", "_links"} {
		t.Run(key, func(t *testing.T) {
			expectCreateRejected(t, withIMDSTags(fmt.Sprintf("imds-key-%d", i), map[string]string{key: "x"}),
				"spec.tags", "instanceMetadataTags enabled, EC2 refuses instance tag keys")
		})
	}
	expectCreateRejected(t, withIMDSTags("imds-many", manyTags(44)), "spec.tags", "at most 43 tags")
	expectCreateRejected(t, withIMDSTags("imds-reserved", map[string]string{"ec2-operator.dev:owner-uid": "x"}),
		"spec.tags", "ec2-operator.dev:")
}

// The documented characters are accepted with tags in instance metadata, and a slash
// is still fine without.
func TestCreateAcceptsIMDSValidTagKeys(t *testing.T) {
	ctx := context.Background()
	for _, obj := range []*v1alpha1.EC2Instance{
		withIMDSTags("imds-ok", map[string]string{"team:owner+-=.,_@A9": "x", "Name": "web"}),
		withIMDSTags("imds-43", manyTags(43)),
		func() *v1alpha1.EC2Instance {
			o := validInstance("imds-off")
			o.Spec.Tags = map[string]string{"team/owner": "x"}
			return o
		}(),
	} {
		if err := k8sClient.Create(ctx, obj); err != nil {
			t.Fatalf("%s: %v", obj.Name, err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(ctx, obj) })
	}
}

// Turning tags in instance metadata on for an object with a slash in a tag key is
// refused like creating it.
func TestUpdateRejectsEnablingIMDSTagsWithAnInvalidKey(t *testing.T) {
	base := validInstance("imds-edit")
	base.Spec.Tags = map[string]string{"team/owner": "x"}
	expectUpdateRejected(t, base, func(o *v1alpha1.EC2Instance) {
		o.Spec.MetadataOptions = &v1alpha1.MetadataOptions{InstanceMetadataTags: "enabled"}
	}, "spec.tags", "rename the tag or disable instanceMetadataTags")
}
