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
	"regexp"
	"strings"
	"time"
)

// amazonOwnerID is the account that owns Amazon Linux AMIs.
const amazonOwnerID = "137112412989"

// Image is a registered AMI.
type Image struct {
	ID           string
	Name         string
	Description  string
	Architecture string // "x86_64" or "arm64"
	OwnerID      string
	OwnerAlias   string // "amazon" for Amazon's images, else ""
	// RootDeviceName is the device the root volume attaches as.
	RootDeviceName string
	// SnapshotID and RootSizeGiB describe the root volume's snapshot; a
	// launch may not ask for a smaller root volume.
	SnapshotID  string
	RootSizeGiB int
	// ImdsSupport is "v2.0" when the AMI requires IMDSv2 by default (as
	// Amazon Linux 2023 AMIs do), otherwise "".
	ImdsSupport  string
	CreationDate time.Time
	// State is the image state, "available" unless AddImageWith set another
	// (EC2's states are pending, available, invalid, deregistered, transient,
	// failed and error).
	State string
	// Tags are the image's tags, which DescribeImages filters with tag:<key>
	// and tag-key and CreateTags may change.
	Tags map[string]string
}

// AddImage registers an AMI owned by the Sim's account with a /dev/xvda
// root device backed by an 8 GiB snapshot. arch is "x86_64" or "arm64";
// id must look like an AMI id (ami- and 8 or 17 hex digits) to be usable.
func (s *Sim) AddImage(id, name, arch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putImage(&Image{
		ID: id, Name: name, Architecture: arch, OwnerID: s.cfg.AccountID,
		RootDeviceName: "/dev/xvda", SnapshotID: "snap-" + strings.TrimPrefix(id, "ami-"), RootSizeGiB: 8,
		CreationDate: s.now(),
	})
}

// AddSSMParameter makes "resolve:ssm:name" resolve to value in RunInstances.
func (s *Sim) AddSSMParameter(name, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ssmParams[name] = value
}

// putImage stores an image, keeping registration order for listings.
func (s *Sim) putImage(img *Image) {
	if _, ok := s.images[img.ID]; !ok {
		s.imageOrder = append(s.imageOrder, img.ID)
	}
	s.images[img.ID] = img
}

// resolveImage turns RunInstances' ImageId, possibly "resolve:ssm:NAME" or
// "resolve:ssm:NAME:VERSION", into a registered image.
func (s *Sim) resolveImage(ref string) (*Image, *apiError) {
	if ref == "" {
		return nil, missingParam("ImageId")
	}
	id := ref
	if name, ok := strings.CutPrefix(ref, "resolve:ssm:"); ok {
		// A trailing ":version" or ":label" selects a parameter version;
		// the simulator keeps one version per parameter.
		if i := strings.LastIndexByte(name, ':'); i > 0 {
			name = name[:i]
		}
		v, found := s.ssmParams[name]
		if !found {
			return nil, invalidValue("Invalid value '%s' for parameter ImageId. The SSM parameter '%s' could not be resolved.", ref, name)
		}
		id = v
	}
	if !imageIDPattern.MatchString(id) {
		return nil, malformedID("InvalidAMIID.Malformed", id, "ami")
	}
	img, ok := s.images[id]
	if !ok {
		return nil, clientErr("InvalidAMIID.NotFound", "The image id '[%s]' does not exist", id)
	}
	if img.state() != "available" {
		// "EC2 error codes": InvalidAMIID.Unavailable is for an AMI that is
		// deregistered or in a transitional state. The message is our guess.
		return nil, clientErr("InvalidAMIID.Unavailable", "The image id '[%s]' is not available; its state is %s", id, img.state())
	}
	return img, nil
}

// describeImages implements DescribeImages with ImageId.N, Owner.N and the
// filters imageMatches and imageExtraFilter know.
func (s *Sim) describeImages(p params, x *xmlBuilder) *apiError {
	ids := p.list("ImageId")
	var missing []string
	for _, id := range ids {
		if !imageIDPattern.MatchString(id) {
			return malformedID("InvalidAMIID.Malformed", id, "ami")
		}
		if _, ok := s.images[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return clientErr("InvalidAMIID.NotFound", "The image id '[%s]' does not exist", strings.Join(missing, ", "))
	}
	owners := p.list("Owner")
	filters := p.filters()
	x.open("imagesSet")
	for _, id := range s.imageOrder {
		img := s.images[id]
		if len(ids) > 0 && !contains(ids, id) {
			continue
		}
		if len(owners) > 0 && !ownerMatches(img, owners, s.cfg.AccountID) {
			continue
		}
		if !imageMatches(img, filters) {
			continue
		}
		writeImage(x, img)
	}
	x.close("imagesSet")
	return nil
}

// ownerMatches applies Owner.N: "self" (the account self), "amazon" or an account id.
func ownerMatches(img *Image, owners []string, self string) bool {
	for _, o := range owners {
		switch {
		case o == "self" && img.OwnerID == self,
			o == img.OwnerAlias && o != "",
			o == img.OwnerID:
			return true
		}
	}
	return false
}

// imageMatches applies DescribeImages filters; unknown filter names match nothing,
// which is stricter than EC2 but surfaces typos in tests.
func imageMatches(img *Image, filters []filter) bool {
	for _, f := range filters {
		var field string
		switch f.Name {
		case "name":
			field = img.Name
		case "architecture":
			field = img.Architecture
		case "image-id":
			field = img.ID
		case "owner-alias":
			field = img.OwnerAlias
		case "owner-id":
			field = img.OwnerID
		case "state":
			field = img.state()
		default:
			if m, known := imageExtraFilter(img, f); !known || !m {
				return false
			}
			continue
		}
		if !anyGlob(f.Values, field) {
			return false
		}
	}
	return true
}

// writeImage renders one imagesSet item.
func writeImage(x *xmlBuilder, img *Image) {
	x.open("item")
	x.leaf("imageId", img.ID)
	x.leaf("imageLocation", img.OwnerID+"/"+img.Name)
	x.leaf("imageState", img.state())
	x.leaf("imageOwnerId", img.OwnerID)
	x.timeLeaf("creationDate", img.CreationDate)
	x.boolLeaf("isPublic", img.OwnerAlias == "amazon")
	x.leaf("architecture", img.Architecture)
	x.leaf("imageType", "machine")
	x.leafIf("imageOwnerAlias", img.OwnerAlias)
	x.leaf("name", img.Name)
	x.leafIf("description", img.Description)
	x.leaf("rootDeviceType", "ebs")
	x.leaf("rootDeviceName", img.RootDeviceName)
	x.open("blockDeviceMapping")
	x.open("item")
	x.leaf("deviceName", img.RootDeviceName)
	x.open("ebs")
	x.leaf("snapshotId", img.SnapshotID)
	x.intLeaf("volumeSize", img.RootSizeGiB)
	x.boolLeaf("deleteOnTermination", true)
	x.leaf("volumeType", "gp3")
	x.boolLeaf("encrypted", false)
	x.close("ebs")
	x.close("item")
	x.close("blockDeviceMapping")
	x.leaf("virtualizationType", "hvm")
	x.leaf("hypervisor", "xen")
	x.boolLeaf("enaSupport", true)
	x.leaf("platformDetails", "Linux/UNIX")
	x.leafIf("imdsSupport", img.ImdsSupport)
	if len(img.Tags) > 0 {
		x.tagSet(img.Tags)
	}
	x.close("item")
}

// anyGlob reports whether value matches any EC2 filter pattern, where "*"
// matches any run of characters and "?" exactly one.
func anyGlob(patterns []string, value string) bool {
	for _, p := range patterns {
		var re strings.Builder
		re.WriteString("^")
		for _, r := range p {
			switch r {
			case '*':
				re.WriteString(".*")
			case '?':
				re.WriteString(".")
			default:
				re.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		re.WriteString("$")
		if regexp.MustCompile(re.String()).MatchString(value) {
			return true
		}
	}
	return false
}

// contains reports whether list holds v.
func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
