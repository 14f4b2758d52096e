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

package instanceset

import (
	"crypto/sha256"
	"encoding/hex"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// launchBatches puts the instances one pass creates into batches of up to
// plan.MaxBatch, each launched by one RunInstances call (the launch phase's
// batch.go): the instance's place is written when it is created, before anything
// is sent. An instance alone in its batch has none. The token is derived from the
// set, the template and the batch's first instance, so that it names this batch
// only, and fits EC2's 64 characters.
func launchBatches(set *computev1alpha1.EC2InstanceSet, hash string, names []string) map[string]plan.Batch {
	out := map[string]plan.Batch{}
	for start := 0; start < len(names); start += plan.MaxBatch {
		chunk := names[start:min(len(names), start+plan.MaxBatch)]
		if len(chunk) < 2 {
			continue
		}
		sum := sha256.Sum256([]byte(string(set.UID) + "/" + hash + "/" + chunk[0]))
		token := "ec2set-" + hex.EncodeToString(sum[:16])
		for i, name := range chunk {
			out[name] = plan.Batch{Token: token, Index: int32(i), Size: int32(len(chunk))}
		}
	}
	return out
}
