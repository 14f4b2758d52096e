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
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// imageIDs returns the ids DescribeImages answered, sorted.
func imageIDs(t *testing.T, c *ec2.Client, in *ec2.DescribeImagesInput) []string {
	t.Helper()
	out, err := c.DescribeImages(simtest.Ctx(t), in)
	if err != nil {
		t.Fatalf("DescribeImages: %v", err)
	}
	var ids []string
	for _, img := range out.Images {
		ids = append(ids, aws.ToString(img.ImageId))
	}
	sort.Strings(ids)
	return ids
}

// addTestImages registers a marketplace image, a third-party image and one
// of our own, next to the two seeded Amazon images.
func addTestImages(t *testing.T, sim *Sim) {
	t.Helper()
	specs := []ImageSpec{
		{ID: "ami-0000000000000a001", Name: "ubuntu-jammy-22.04-amd64-server-20250101", OwnerID: "099720109477", Architecture: "x86_64",
			CreationDate: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Tags: map[string]string{"distro": "ubuntu"}},
		{ID: "ami-0000000000000a002", Name: "vendor-appliance-1.2", OwnerID: "679593333241", OwnerAlias: "aws-marketplace", Architecture: "arm64"},
		{ID: "ami-0000000000000a003", Name: "golden-web-7", Architecture: "x86_64", State: "pending", RootSizeGiB: 30,
			Tags: map[string]string{"team": "web", "stage": "prod"}, ImdsSupport: "v2.0"},
	}
	for _, s := range specs {
		if err := sim.AddImageWith(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := sim.AddImageWith(ImageSpec{ID: "not-an-ami"}); err == nil {
		t.Fatal("AddImageWith accepted a malformed id")
	}
}

// DescribeImages' Owner.N takes account ids and the aliases amazon, self and
// aws-marketplace (API reference, "Owner.N").
func TestDescribeImagesOwners(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 1})
	addTestImages(t, sim)
	cases := map[string][]string{
		"amazon":          {DefaultImageID, ArmImageID},
		"self":            {"ami-0000000000000a003"},
		"aws-marketplace": {"ami-0000000000000a002"},
		"099720109477":    {"ami-0000000000000a001"},
	}
	for owner, want := range cases {
		want = append([]string(nil), want...)
		sort.Strings(want)
		got := imageIDs(t, c, &ec2.DescribeImagesInput{Owners: []string{owner}})
		if len(got) != len(want) || (len(got) > 0 && got[0] != want[0]) || got[len(got)-1] != want[len(want)-1] {
			t.Errorf("Owner %s: got %v, want %v", owner, got, want)
		}
	}
	if got := imageIDs(t, c, &ec2.DescribeImagesInput{Owners: []string{"self", "amazon"}}); len(got) != 3 {
		t.Errorf("Owners self+amazon: got %v", got)
	}
}

// Filters name (with * and ? globs), architecture, state, tag:<key>, tag-key,
// image-id, owner-alias and owner-id select images; all filters must match.
func TestDescribeImagesFilters(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 2})
	addTestImages(t, sim)
	f := func(name string, values ...string) types.Filter {
		return types.Filter{Name: aws.String(name), Values: values}
	}
	cases := []struct {
		filters []types.Filter
		want    []string
	}{
		{[]types.Filter{f("name", "al2023-ami-2023.*-x86_64")}, []string{DefaultImageID}},
		{[]types.Filter{f("name", "golden-web-?")}, []string{"ami-0000000000000a003"}},
		{[]types.Filter{f("architecture", "arm64")}, []string{"ami-0000000000000a002", ArmImageID}},
		{[]types.Filter{f("state", "pending")}, []string{"ami-0000000000000a003"}},
		{[]types.Filter{f("tag:team", "web")}, []string{"ami-0000000000000a003"}},
		{[]types.Filter{f("tag:team", "db")}, nil},
		{[]types.Filter{f("tag-key", "distro", "stage")}, []string{"ami-0000000000000a001", "ami-0000000000000a003"}},
		{[]types.Filter{f("image-id", "ami-0000000000000a00*"), f("architecture", "x86_64")}, []string{"ami-0000000000000a001", "ami-0000000000000a003"}},
		{[]types.Filter{f("owner-alias", "amazon"), f("architecture", "x86_64")}, []string{DefaultImageID}},
		{[]types.Filter{f("owner-id", DefaultAccountID)}, []string{"ami-0000000000000a003"}},
	}
	for _, tc := range cases {
		got := imageIDs(t, c, &ec2.DescribeImagesInput{Filters: tc.filters})
		sort.Strings(tc.want)
		if len(got) != len(tc.want) {
			t.Errorf("filters %v: got %v, want %v", aws.ToString(tc.filters[0].Name), got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("filters %v: got %v, want %v", aws.ToString(tc.filters[0].Name), got, tc.want)
			}
		}
	}
}

// Images report the fields the operator reads, and CreateTags on an image
// shows in DescribeImages.
func TestDescribeImagesReportsImageFields(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 3})
	addTestImages(t, sim)
	if _, err := c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{Resources: []string{"ami-0000000000000a001"},
		Tags: []types.Tag{{Key: aws.String("release"), Value: aws.String("22.04")}}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.DescribeImages(simtest.Ctx(t), &ec2.DescribeImagesInput{ImageIds: []string{"ami-0000000000000a001", "ami-0000000000000a002", DefaultImageID}})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]types.Image{}
	for _, img := range out.Images {
		byID[aws.ToString(img.ImageId)] = img
	}
	u := byID["ami-0000000000000a001"]
	if aws.ToString(u.CreationDate) != "2025-01-01T00:00:00.000Z" || aws.ToString(u.Name) != "ubuntu-jammy-22.04-amd64-server-20250101" ||
		u.Architecture != types.ArchitectureValuesX8664 || aws.ToString(u.OwnerId) != "099720109477" || u.ImageOwnerAlias != nil ||
		u.State != types.ImageStateAvailable || aws.ToString(u.PlatformDetails) != "Linux/UNIX" || len(u.Tags) != 2 {
		t.Fatalf("ubuntu image = %+v", u)
	}
	if m := byID["ami-0000000000000a002"]; aws.ToString(m.ImageOwnerAlias) != "aws-marketplace" || m.Architecture != types.ArchitectureValuesArm64 {
		t.Fatalf("marketplace image = %+v", m)
	}
	if d := byID[DefaultImageID]; aws.ToString(d.ImageOwnerAlias) != "amazon" || aws.ToString(d.CreationDate) != "2025-01-15T00:00:00.000Z" ||
		d.ImdsSupport != types.ImdsSupportValuesV20 {
		t.Fatalf("seeded image = %+v", d)
	}
	_, err = c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{Resources: []string{"ami-0000000000000dead"},
		Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	simtest.WantCode(t, err, "InvalidAMIID.NotFound")
}

// An image added with AddImageWith launches like a seeded one and enforces
// its root volume size; the old AddImage keeps working.
func TestAddImageWithLaunches(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 4})
	addTestImages(t, sim)
	sim.AddImage("ami-0000000000000b001", "plain", "x86_64")
	in := basicRun()
	in.ImageId = aws.String("ami-0000000000000b001")
	runOne(t, c, in)
	if err := sim.AddImageWith(ImageSpec{ID: "ami-0000000000000b002", Name: "big-root", RootSizeGiB: 30}); err != nil {
		t.Fatal(err)
	}
	in = basicRun()
	in.ImageId = aws.String("ami-0000000000000b002")
	in.BlockDeviceMappings = []types.BlockDeviceMapping{{DeviceName: aws.String("/dev/xvda"), Ebs: &types.EbsBlockDevice{VolumeSize: aws.Int32(8)}}}
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidBlockDeviceMapping")
}

// An image that is not available cannot be launched ("EC2 error codes":
// InvalidAMIID.Unavailable).
func TestRunInstancesRefusesUnavailableImage(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 5})
	addTestImages(t, sim)
	in := basicRun()
	in.ImageId = aws.String("ami-0000000000000a003")
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidAMIID.Unavailable")
}
