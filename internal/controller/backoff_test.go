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

package controller

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func reconcileRequest(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

func TestFailureBackoffSpreadsObjectsThatFailedTogether(t *testing.T) {
	b := newFailureBackoff(time.Second, time.Minute)
	seen := map[time.Duration]bool{}
	for i := range 20 {
		item := reconcileRequest(fmt.Sprintf("obj-%d", i))
		b.When(item) // the first failure of each
		d := b.When(item)
		if d < 2*time.Second || d > 2*time.Second+2*time.Second/5 {
			t.Errorf("second delay %s, want 2s plus up to a fifth", d)
		}
		seen[d] = true
	}
	if len(seen) < 10 {
		t.Errorf("20 objects that failed together come back at %d distinct times; want them spread", len(seen))
	}
}
