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
	"fmt"
	"maps"
	"strings"
	"time"
)

// ImageSpec describes an AMI for AddImageWith. Zero fields take the defaults
// AddImage uses: owner Config.AccountID, architecture x86_64, a /dev/xvda
// root device backed by an 8 GiB snapshot, state available and the
// simulator's current time as the creation date.
type ImageSpec struct {
	// ID must look like an AMI id: "ami-" and 8 or 17 hex digits.
	ID          string
	Name        string
	Description string
	// OwnerID is the owning account; OwnerAlias is "amazon",
	// "aws-marketplace" or "" (EC2 reports an alias only for those owners).
	OwnerID    string
	OwnerAlias string
	// Architecture is "x86_64", "arm64", "i386", "x86_64_mac" or "arm64_mac".
	Architecture string
	CreationDate time.Time
	// RootDeviceName, RootSizeGiB and SnapshotID describe the root volume.
	RootDeviceName string
	RootSizeGiB    int
	SnapshotID     string
	// ImdsSupport is "v2.0" when the AMI makes instances require IMDSv2.
	ImdsSupport string
	// State is the image state; "" means "available".
	State string
	Tags  map[string]string
}

// AddImageWith registers an AMI described by spec, replacing any image with
// the same id. It fails only when the id is not shaped like an AMI id.
func (s *Sim) AddImageWith(spec ImageSpec) error {
	if !imageIDPattern.MatchString(spec.ID) {
		return fmt.Errorf("ec2sim: %q is not an AMI id", spec.ID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	img := &Image{
		ID: spec.ID, Name: spec.Name, Description: spec.Description,
		Architecture: spec.Architecture, OwnerID: spec.OwnerID, OwnerAlias: spec.OwnerAlias,
		RootDeviceName: spec.RootDeviceName, SnapshotID: spec.SnapshotID, RootSizeGiB: spec.RootSizeGiB,
		ImdsSupport: spec.ImdsSupport, CreationDate: spec.CreationDate, State: spec.State,
		Tags: maps.Clone(spec.Tags),
	}
	if img.OwnerID == "" {
		img.OwnerID = s.cfg.AccountID
	}
	if img.Architecture == "" {
		img.Architecture = "x86_64"
	}
	if img.RootDeviceName == "" {
		img.RootDeviceName = "/dev/xvda"
	}
	if img.RootSizeGiB == 0 {
		img.RootSizeGiB = 8
	}
	if img.SnapshotID == "" {
		img.SnapshotID = "snap-" + strings.TrimPrefix(img.ID, "ami-")
	}
	if img.CreationDate.IsZero() {
		img.CreationDate = s.now()
	}
	s.putImage(img)
	return nil
}

// state is the image's state, "available" unless set otherwise.
func (img *Image) state() string {
	if img.State == "" {
		return "available"
	}
	return img.State
}

// imageExtraFilter applies the DescribeImages filters beyond the plain field
// matches of imageMatches: tag:<key>, tag-key and a few image attributes
// (DescribeImages API reference, "Filter"). known is false for a filter
// name the simulator does not implement.
func imageExtraFilter(img *Image, f filter) (match, known bool) {
	if key, ok := strings.CutPrefix(f.Name, "tag:"); ok {
		v, has := img.Tags[key]
		return has && anyGlob(f.Values, v), true
	}
	switch f.Name {
	case "tag-key":
		for k := range img.Tags {
			if anyGlob(f.Values, k) {
				return true, true
			}
		}
		return false, true
	case "description":
		return anyGlob(f.Values, img.Description), true
	case "root-device-name":
		return anyGlob(f.Values, img.RootDeviceName), true
	case "root-device-type":
		return anyGlob(f.Values, "ebs"), true
	case "platform-details":
		return anyGlob(f.Values, "Linux/UNIX"), true
	case "is-public":
		return anyGlob(f.Values, boolString(img.OwnerAlias == "amazon")), true
	case "imds-support":
		return anyGlob(f.Values, img.ImdsSupport), true
	}
	return false, false
}
