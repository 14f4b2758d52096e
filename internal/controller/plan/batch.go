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
	"fmt"
	"strconv"
	"strings"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// MaxBatch is the most instances one batch asks RunInstances for. EC2 documents no
// per-call maximum below an account's vCPU quota, but it charges one resource token
// per instance (1,000 in the documented bucket) and answers a call it lacks capacity
// for with fewer instances: a hundred keeps a thousand replicas to ten calls while a
// short answer or a refusal touches at most a hundred instances.
const MaxBatch = 100

// Batch is an instance's place in a set's batch launch, as the set wrote it in
// computev1alpha1.LaunchBatchAnnotation.
type Batch struct {
	// Token is the batch's client token: every member sends (or finds) the same call.
	Token string
	// Index is the member's launch index; Size is how many the call asks for.
	Index, Size int32
}

// String is the annotation's value.
func (b Batch) String() string { return fmt.Sprintf("%s/%d/%d", b.Token, b.Index, b.Size) }

// BatchOf reads an instance's batch. It is false for an instance that is in none, or
// whose annotation does not parse: such an instance launches alone. Only the first
// launch of an object is batched; a replacement launches alone.
func BatchOf(obj *computev1alpha1.EC2Instance) (Batch, bool) {
	value, ok := obj.Annotations[computev1alpha1.LaunchBatchAnnotation]
	if !ok || obj.Status.Recreations > 0 || obj.Spec.InstanceID != "" {
		return Batch{}, false
	}
	parts := strings.Split(value, "/")
	if len(parts) != 3 || parts[0] == "" || len(parts[0]) > 64 {
		return Batch{}, false
	}
	index, errIndex := strconv.ParseInt(parts[1], 10, 32)
	size, errSize := strconv.ParseInt(parts[2], 10, 32)
	if errIndex != nil || errSize != nil || size < 2 || size > MaxBatch || index < 0 || index >= size {
		return Batch{}, false
	}
	return Batch{Token: parts[0], Index: int32(index), Size: int32(size)}, true
}

// BatchLaunchRequest is the launch request a batch sends: the member's, for all of
// them, with only the tags every member shares (the user's, the cluster's and the
// namespace's). Each member writes its own name and UID on its instance once it
// has taken it; until then the namespace tag keeps the instance its tenant's.
func BatchLaunchRequest(obj *computev1alpha1.EC2Instance, cluster string, b Batch, userData string) ec2.LaunchRequest {
	req := LaunchRequest(obj, cluster, b.Token, userData)
	req.Count = b.Size
	req.Tags = BatchTags(obj, cluster)
	return req
}

// BatchTags are the tags a batch launches its instances with.
func BatchTags(obj *computev1alpha1.EC2Instance, cluster string) map[string]string {
	tags := DesiredTags(obj, cluster)
	for _, k := range []string{ec2.TagOwnerUID, ec2.TagOwnerName, ec2.TagName} {
		delete(tags, k)
	}
	if name, ok := obj.Spec.Tags[ec2.TagName]; ok {
		tags[ec2.TagName] = name
	}
	return tags
}
