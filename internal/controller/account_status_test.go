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
	"context"
	"fmt"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAnAccountCorrectsAStatusNotItsOwn: an account's pass writes only what differs
// from the account as the cache holds it. A pass on an EC2Instance's event that reads
// an account older than its last status write can find nothing to write and leave a
// wrong count of users on the server until the next verification, minutes later. The
// account's own status changes therefore reconcile it too. Here the wrong count is
// written by the test, as such a pass would have left it.
func TestAnAccountCorrectsAStatusNotItsOwn(t *testing.T) {
	t.Parallel()
	h, a := accountAHarness(t, harnessOptions{})
	h.createIn(a, "user")
	h.waitReady("user")
	inUseBy := func(want int32) func() string {
		return func() string {
			acct, err := h.getAccount(a.Name)
			if err != nil {
				return err.Error()
			}
			if acct.Status.InUseBy != want {
				return fmt.Sprintf("AWSAccount a inUseBy = %d, want %d", acct.Status.InUseBy, want)
			}
			return ""
		}
	}
	h.eventually(h.timeout, inUseBy(1))
	acct, err := h.getAccount(a.Name)
	if err != nil {
		t.Fatal(err)
	}
	base := acct.DeepCopy()
	acct.Status.InUseBy = 5
	if err := h.k8s.Status().Patch(context.Background(), acct, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	// Well within the shipped verification period, the account's only requeue.
	h.eventually(10*time.Second, inUseBy(1))
}
