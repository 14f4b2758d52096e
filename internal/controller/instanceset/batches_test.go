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
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

func TestThePassesCreationsAreBatchedAHundredAtATime(t *testing.T) {
	set := &computev1alpha1.EC2InstanceSet{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "set-uid"}}
	var names []string
	for i := range 201 {
		names = append(names, fmt.Sprintf("web-h-%d", i))
	}
	batches := launchBatches(set, "h", names)
	if len(batches) != 200 {
		t.Fatalf("%d instances batched, want 200: the last one is alone", len(batches))
	}
	first, second := batches[names[0]], batches[names[100]]
	if first.Size != plan.MaxBatch || second.Size != plan.MaxBatch || first.Token == second.Token || len(first.Token) > 64 {
		t.Errorf("batches %+v and %+v", first, second)
	}
	for i := range 100 {
		if b := batches[names[i]]; b.Index != int32(i) || b.Token != first.Token {
			t.Errorf("%s: %+v", names[i], b)
		}
	}
	if again := launchBatches(set, "h", names); again[names[7]] != batches[names[7]] {
		t.Error("the same pass repeated (after a crash) made other batches")
	}
	if one := launchBatches(set, "h", names[:1]); len(one) != 0 {
		t.Errorf("a single creation was batched: %v", one)
	}
}
