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

package launch

import (
	"context"
	"fmt"
	"slices"
	"strings"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// CodeArchitectureMismatch marks an image whose architecture the instance type cannot
// run; EC2 would refuse the launch, the operator says so before sending it.
const CodeArchitectureMismatch = "ArchitectureMismatch"

// chooseImage resolves spec.imageSelector into status.imageId and status.imageName
// before a launch (written with the launch record, so that a retried launch sends
// the same image), and checks what can be checked against the instance type before
// EC2 is asked: the image's architecture, cpuOptions and hibernation. Images and
// instance types are described once per process and region.
func chooseImage(ctx context.Context, c EC2, s *pass.Scope, newRecord bool) error {
	spec, st := &s.Obj.Spec, &s.Obj.Status
	var image *ec2.Image
	switch {
	case spec.ImageSelector != nil && (newRecord || st.ImageID == ""):
		sel := spec.ImageSelector
		found, err := c.FindImages(ctx, ec2.ImageQuery{Owners: sel.Owners, Name: sel.Name, Architecture: sel.Architecture, Tags: sel.Tags})
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeImages", Code: "InvalidAMIID.NotFound",
				Message: "imageSelector matches no available image" + imageSelectorText(sel)}
		}
		image = &found[0]
		st.ImageID, st.ImageName = image.ID, image.Name
	case spec.ImageSelector != nil:
		var err error
		if image, err = c.DescribeImage(ctx, st.ImageID); err != nil {
			return err
		}
	case strings.HasPrefix(spec.ImageID, "ami-"):
		var err error
		if image, err = c.DescribeImage(ctx, spec.ImageID); err != nil {
			return err
		}
		st.ImageName = image.Name
	}
	// The launch checks the image's owner against the account's guardrails once the
	// subnet and groups are chosen too (checkChosenGuardrails).
	s.Image = image
	return checkAgainstType(ctx, c, s, image)
}

// checkAgainstType refuses, before launching, what the instance type cannot do. A
// resolve:ssm: image is only known to EC2, which then answers for its architecture.
func checkAgainstType(ctx context.Context, c EC2, s *pass.Scope, image *ec2.Image) error {
	spec := &s.Obj.Spec
	if image == nil && spec.CPUOptions == nil && (spec.Hibernation == nil || !*spec.Hibernation) {
		return nil
	}
	info, err := c.InstanceType(ctx, spec.InstanceType)
	if err != nil {
		return err
	}
	if image != nil && image.Architecture != "" && len(info.Architectures) > 0 && !slices.Contains(info.Architectures, image.Architecture) {
		return pass.Refusal(computev1alpha1.ReasonArchitectureMismatch, "DescribeInstanceTypes", CodeArchitectureMismatch,
			fmt.Sprintf("image %s is %s, but instance type %s runs %s", image.ID, image.Architecture, spec.InstanceType, strings.Join(info.Architectures, ", ")))
	}
	if o := spec.CPUOptions; o != nil {
		if len(info.ValidCores) == 0 {
			return invalidSpec("spec.cpuOptions: instance type %s does not support CPU options", spec.InstanceType)
		}
		if o.CoreCount != nil && !slices.Contains(info.ValidCores, *o.CoreCount) {
			return invalidSpec("spec.cpuOptions.coreCount: %d is not valid for %s (valid: %v)", *o.CoreCount, spec.InstanceType, info.ValidCores)
		}
		if o.ThreadsPerCore != nil && len(info.ValidThreadsPerCore) > 0 && !slices.Contains(info.ValidThreadsPerCore, *o.ThreadsPerCore) {
			return invalidSpec("spec.cpuOptions.threadsPerCore: %d is not valid for %s (valid: %v)", *o.ThreadsPerCore, spec.InstanceType, info.ValidThreadsPerCore)
		}
	}
	if h := spec.Hibernation; h != nil && *h {
		if !info.HibernationSupported {
			return invalidSpec("spec.hibernation: instance type %s does not support hibernation", spec.InstanceType)
		}
		ramGiB := int32((info.MemoryMiB + 1023) / 1024)
		if rv := spec.RootVolume; rv != nil && rv.SizeGiB != nil && *rv.SizeGiB < ramGiB {
			return invalidSpec("spec.rootVolume.sizeGiB: %d GiB cannot hold the %d GiB of memory of %s that hibernation saves", *rv.SizeGiB, ramGiB, spec.InstanceType)
		}
	}
	return nil
}

func invalidSpec(format string, args ...any) error {
	return &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeInstanceTypes", Code: "InvalidParameterCombination", Message: fmt.Sprintf(format, args...)}
}

func imageSelectorText(sel *computev1alpha1.ImageSelector) string {
	out := " owned by " + strings.Join(sel.Owners, ",")
	if sel.Name != "" {
		out += " named " + sel.Name
	}
	if sel.Architecture != "" {
		out += " for " + sel.Architecture
	}
	return out + selectorText(sel.Tags, "")
}
