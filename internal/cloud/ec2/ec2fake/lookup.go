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

package ec2fake

import (
	"context"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// FindSubnets lists the subnets with the query's IDs, or its tags (an empty value
// matches any value), in the query's zone when it names one.
func (f *Fake) FindSubnets(_ context.Context, q ec2.SubnetQuery) ([]ec2.Subnet, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("FindSubnets", first(q.IDs)); err != nil {
		return nil, err
	}
	var out []ec2.Subnet
	for _, s := range f.subnets {
		if (len(q.IDs) == 0 || slices.Contains(q.IDs, s.ID)) && selects(s.Tags, q.Tags) &&
			(q.AvailabilityZone == "" || q.AvailabilityZone == s.AvailabilityZone) {
			s.Tags = maps.Clone(s.Tags)
			out = append(out, s)
		}
	}
	return out, nil
}

// FindSecurityGroups lists the groups with the query's tags or names, in its VPC when
// it names one, sorted by ID as the real client sorts them.
func (f *Fake) FindSecurityGroups(_ context.Context, q ec2.SecurityGroupQuery) ([]ec2.SecurityGroup, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("FindSecurityGroups", q.VPCID); err != nil {
		return nil, err
	}
	var out []ec2.SecurityGroup
	for _, g := range f.groups {
		if (q.VPCID == "" || q.VPCID == g.VPCID) && selects(g.tags, q.Tags) &&
			(len(q.Names) == 0 || slices.Contains(q.Names, g.Name)) {
			out = append(out, g.SecurityGroup)
		}
	}
	slices.SortFunc(out, func(a, b ec2.SecurityGroup) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// FindImages lists the images matching the query, newest first. Owners match an
// image's owner ID or alias; the name is a pattern with * and ? wildcards.
func (f *Fake) FindImages(_ context.Context, q ec2.ImageQuery) ([]ec2.Image, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("FindImages", q.Name); err != nil {
		return nil, err
	}
	var out []ec2.Image
	for _, img := range f.images {
		named, _ := path.Match(valueOr(q.Name, "*"), img.Name)
		if named && (len(q.Owners) == 0 || slices.Contains(q.Owners, img.OwnerID) || slices.Contains(q.Owners, img.OwnerAlias)) &&
			(q.Architecture == "" || q.Architecture == img.Architecture) && selects(img.tags, q.Tags) {
			out = append(out, img.Image)
		}
	}
	slices.SortStableFunc(out, func(a, b ec2.Image) int { return b.CreationDate.Compare(a.CreationDate) })
	return out, nil
}

// DescribeImage returns one image, or InvalidAMIID.NotFound.
func (f *Fake) DescribeImage(_ context.Context, id string) (*ec2.Image, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("DescribeImage", id); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(f.images, func(img image) bool { return img.ID == id })
	if i < 0 {
		return nil, errorf("DescribeImages", "InvalidAMIID.NotFound", "The image id '[%s]' does not exist", id)
	}
	out := f.images[i].Image
	return &out, nil
}

// InstanceType describes an instance type, or answers InvalidInstanceType.
func (f *Fake) InstanceType(_ context.Context, name string) (*ec2.InstanceTypeInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("InstanceType", name); err != nil {
		return nil, err
	}
	t, ok := f.types[name]
	if !ok {
		return nil, errorf("DescribeInstanceTypes", "InvalidInstanceType",
			"The following supplied instance types do not exist: [%s]", name)
	}
	t.Architectures = slices.Clone(t.Architectures)
	return &t, nil
}

// maxTags is EC2's limit of tags on one resource.
const maxTags = 50

// CreateTags adds or overwrites tags on instances, volumes and Elastic IPs. An unknown
// resource is refused with its NotFound code, and a resource that would carry more than
// 50 tags with TagLimitExceeded (awserrors.IsTagLimitExceeded), before anything changes.
func (f *Fake) CreateTags(_ context.Context, resourceIDs []string, tags map[string]string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("CreateTags", first(resourceIDs)); err != nil {
		return err
	}
	if len(resourceIDs) == 0 || len(tags) == 0 {
		return nil
	}
	var targets []map[string]string
	for _, id := range resourceIDs {
		t, err := f.tagsOf("CreateTags", id)
		if err != nil {
			return err
		}
		merged := maps.Clone(t)
		maps.Copy(merged, tags)
		if len(merged) > maxTags {
			return errorf("CreateTags", "TagLimitExceeded", "The maximum number of tags (%d) for resource '%s' has been reached.", maxTags, id)
		}
		targets = append(targets, t)
	}
	for _, t := range targets {
		maps.Copy(t, tags)
	}
	return nil
}

// DeleteTags removes the keys from the resources, whatever their values.
func (f *Fake) DeleteTags(_ context.Context, resourceIDs []string, keys []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("DeleteTags", first(resourceIDs)); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	for _, id := range resourceIDs {
		t, err := f.tagsOf("DeleteTags", id)
		if err != nil {
			return err
		}
		for _, k := range keys {
			delete(t, k)
		}
	}
	return nil
}

// tagsOf returns the live tag map of a resource, by the prefix of its ID.
func (f *Fake) tagsOf(operation, id string) (map[string]string, error) {
	switch {
	case strings.HasPrefix(id, "i-"):
		in, err := f.instance(operation, id)
		if err != nil {
			return nil, err
		}
		return in.Tags, nil
	case strings.HasPrefix(id, "vol-"):
		v, err := f.volume(operation, id)
		if err != nil {
			return nil, err
		}
		return v.Tags, nil
	case strings.HasPrefix(id, "eipalloc-"):
		a, err := f.address(operation, id)
		if err != nil {
			return nil, err
		}
		if a.Tags == nil {
			a.Tags = map[string]string{}
		}
		return a.Tags, nil
	}
	return nil, errorf(operation, "InvalidID", "The ID '%s' is not valid", id)
}

// selects reports whether tags hold every wanted key, with its value unless the wanted
// value is empty, as selector queries match.
func selects(tags, want map[string]string) bool {
	for k, v := range want {
		if got, ok := tags[k]; !ok || v != "" && got != v {
			return false
		}
	}
	return true
}

// DescribeSnapshot returns one snapshot added with AddSnapshot, or
// InvalidSnapshot.NotFound.
func (f *Fake) DescribeSnapshot(_ context.Context, id string) (*ec2.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("DescribeSnapshot", id); err != nil {
		return nil, err
	}
	snap, ok := f.snapshots[id]
	if !ok {
		return nil, errorf("DescribeSnapshots", "InvalidSnapshot.NotFound", "The snapshot '%s' does not exist.", id)
	}
	return &snap, nil
}
