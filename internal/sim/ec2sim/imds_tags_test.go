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
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// withIMDSTags returns a launch that exposes tags in instance metadata and
// tags the instance with instanceKey and a volume with volumeKey.
func withIMDSTags(instanceKey, volumeKey string) *ec2.RunInstancesInput {
	in := basicRun()
	in.MetadataOptions = &types.InstanceMetadataOptionsRequest{InstanceMetadataTags: types.InstanceMetadataTagsStateEnabled}
	in.TagSpecifications = []types.TagSpecification{
		{ResourceType: types.ResourceTypeInstance, Tags: []types.Tag{{Key: aws.String(instanceKey), Value: aws.String("v")}}},
		{ResourceType: types.ResourceTypeVolume, Tags: []types.Tag{{Key: aws.String(volumeKey), Value: aws.String("v")}}},
	}
	return in
}

// wantIMDSKeyRefused checks EC2's answer to an instance tag key that instance
// metadata cannot carry.
func wantIMDSKeyRefused(t *testing.T, err error, key string) {
	t.Helper()
	simtest.WantCode(t, err, "InvalidParameterValue")
	if !strings.HasPrefix(simtest.ErrMessage(err), "'"+key+"' is not a valid tag key. Tag keys must match pattern") {
		t.Fatalf("message = %q", simtest.ErrMessage(err))
	}
}

// With tags in instance metadata, RunInstances refuses instance tag keys with
// a slash, a space or a reserved name, and accepts the documented characters;
// volume tags keep EC2's general rules.
func TestRunInstancesRefusesIMDSInvalidInstanceTagKeys(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 61})
	for _, key := range []string{"ec2-operator.dev/owner-uid", "Patch Group", ".", "..", "_index"} {
		_, err := c.RunInstances(simtest.Ctx(t), withIMDSTags(key, "ok"))
		wantIMDSKeyRefused(t, err, key)
	}
	id := runOne(t, c, withIMDSTags("ec2-operator.dev:owner-uid+-=.,_:@A9", "ec2-operator.dev/device"))
	if got := describeOne(t, c, id).MetadataOptions.InstanceMetadataTags; got != types.InstanceMetadataTagsStateEnabled {
		t.Fatalf("instanceMetadataTags = %q", got)
	}

	plain := withIMDSTags("ec2-operator.dev/owner-uid", "x")
	plain.MetadataOptions = nil
	runOne(t, c, plain) // without tags in metadata, a slash is fine
}

// ModifyInstanceMetadataOptions refuses to expose tags while the instance
// carries a key metadata cannot hold, and accepts it once the key is gone.
func TestModifyInstanceMetadataOptionsRefusesIMDSInvalidKeys(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 62})
	in := withIMDSTags("ec2-operator.dev/owner-uid", "x")
	in.MetadataOptions = nil
	id := runOne(t, c, in)
	enable := &ec2.ModifyInstanceMetadataOptionsInput{InstanceId: aws.String(id), InstanceMetadataTags: types.InstanceMetadataTagsStateEnabled}
	_, err := c.ModifyInstanceMetadataOptions(simtest.Ctx(t), enable)
	wantIMDSKeyRefused(t, err, "ec2-operator.dev/owner-uid")
	if got := describeOne(t, c, id).MetadataOptions.InstanceMetadataTags; got != types.InstanceMetadataTagsStateDisabled {
		t.Fatalf("a refused change applied: instanceMetadataTags = %q", got)
	}

	if _, err := c.DeleteTags(simtest.Ctx(t), &ec2.DeleteTagsInput{Resources: []string{id}, Tags: []types.Tag{{Key: aws.String("ec2-operator.dev/owner-uid")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyInstanceMetadataOptions(simtest.Ctx(t), enable); err != nil {
		t.Fatalf("ModifyInstanceMetadataOptions: %v", err)
	}
}

// CreateTags refuses an invalid key on an instance that exposes its tags,
// changing nothing, while the same key on its volume is accepted.
func TestCreateTagsRefusesIMDSInvalidKeyOnExposingInstance(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 63})
	id := runOne(t, c, withIMDSTags("owner", "x"))
	vol := aws.ToString(describeOne(t, c, id).BlockDeviceMappings[0].Ebs.VolumeId)
	bad := []types.Tag{{Key: aws.String("ok"), Value: aws.String("1")}, {Key: aws.String("a/b"), Value: aws.String("2")}}
	_, err := c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{Resources: []string{id}, Tags: bad})
	wantIMDSKeyRefused(t, err, "a/b")
	for _, tag := range describeOne(t, c, id).Tags {
		if aws.ToString(tag.Key) == "ok" {
			t.Fatal("a refused CreateTags applied a tag")
		}
	}
	if _, err := c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{Resources: []string{vol}, Tags: bad}); err != nil {
		t.Fatalf("CreateTags on the volume: %v", err)
	}
}

// EC2 ANDs filters and ORs the values of one, so tag-key over two keys plus
// tag-value finds instances tagged with either key: a superset that the
// operator narrows client-side.
func TestDescribeInstancesTagKeyValuesAreORed(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 64})
	tagged := func(k, v string) string {
		in := basicRun()
		in.TagSpecifications = []types.TagSpecification{{ResourceType: types.ResourceTypeInstance,
			Tags: []types.Tag{{Key: aws.String(k), Value: aws.String(v)}}}}
		return runOne(t, c, in)
	}
	slash, colon := tagged("p/uid", "u1"), tagged("p:uid", "u1")
	tagged("p/uid", "u2")
	tagged("other", "u1")
	out, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{Filters: []types.Filter{
		{Name: aws.String("tag-key"), Values: []string{"p/uid", "p:uid"}},
		{Name: aws.String("tag-value"), Values: []string{"u1"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range out.Reservations {
		for _, i := range r.Instances {
			got[aws.ToString(i.InstanceId)] = true
		}
	}
	if len(got) != 2 || !got[slash] || !got[colon] {
		t.Fatalf("found %v, want %s and %s", got, slash, colon)
	}
}
