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

package pass

import (
	"testing"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// Stalled follows Ready's reason in one place: a reason that needs the user stalls the
// object, progress and retryable failures keep it reconciling.
func TestProgressConditionsFollowReadyAndTheRetryPolicy(t *testing.T) {
	for reason := range ReasonsNeedingTheUser {
		if IsProgressReason(reason) {
			t.Errorf("reason %s both needs the user and is progress", reason)
		}
		s := testScope()
		s.NotReady(reason, "why")
		DeriveProgress(s)
		if c := s.Condition(computev1alpha1.ConditionStalled); c == nil || c.Status != metav1.ConditionTrue {
			t.Errorf("reason %s does not stall the object", reason)
		}
	}
	for _, reason := range []string{computev1alpha1.ReasonThrottled, computev1alpha1.ReasonInsufficientCapacity, computev1alpha1.ReasonPending, computev1alpha1.ReasonAWSError} {
		s := testScope()
		s.NotReady(reason, "why")
		DeriveProgress(s)
		if c := s.Condition(computev1alpha1.ConditionReconciling); c == nil || c.Status != metav1.ConditionTrue {
			t.Errorf("reason %s does not keep the object reconciling", reason)
		}
	}
}

// testScope is a scope for an object that has not been written yet, with no EC2 client.
func testScope() *Scope {
	return NewScope(&computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a", Generation: 1}}, logr.Discard(), nil)
}
