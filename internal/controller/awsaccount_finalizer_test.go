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
	"net/http"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// foreignFinalizer is another controller's finalizer on an AWSAccount.
const foreignFinalizer = "backup.example.com/protect"

// finalizerRace adds another controller's finalizer to an AWSAccount just before the
// operator's first patch of that account's metadata reaches the API server, as a
// controller acting between the operator's cached read and its write would.
type finalizerRace struct {
	next  http.RoundTripper
	other client.Client
	done  atomic.Bool
}

func (f *finalizerRace) RoundTrip(req *http.Request) (*http.Response, error) {
	p := req.URL.Path
	if req.Method == http.MethodPatch && strings.Contains(p, "/awsaccounts/") && path.Base(path.Dir(p)) == "awsaccounts" && f.done.CompareAndSwap(false, true) {
		acct := &computev1alpha1.AWSAccount{}
		if err := f.other.Get(req.Context(), client.ObjectKey{Name: path.Base(p)}, acct); err == nil {
			acct.Finalizers = append(acct.Finalizers, foreignFinalizer)
			_ = f.other.Update(req.Context(), acct)
		}
	}
	return f.next.RoundTrip(req)
}

// TestTheAccountFinalizerNeverDropsAnotherControllersFinalizer: the operator adds its
// finalizer to an AWSAccount while another controller adds its own; both stay.
func TestTheAccountFinalizerNeverDropsAnotherControllersFinalizer(t *testing.T) {
	t.Parallel()
	race := &finalizerRace{}
	h := newHarness(t, harnessOptions{accounts: true,
		apiMiddleware: func(rt http.RoundTripper) http.RoundTripper { race.next = rt; return race }})
	race.other = h.k8s
	a := h.account("a", roleA, externalIDA, computev1alpha1.AllowedNamespaces{Names: []string{h.ns}})
	h.waitAccount(a.Name, computev1alpha1.ReasonVerified)
	h.eventually(h.timeout, func() string {
		got, err := h.getAccount(a.Name)
		if err != nil {
			return err.Error()
		}
		return unless(race.done.Load() && slices.Contains(got.Finalizers, foreignFinalizer) && slices.Contains(got.Finalizers, computev1alpha1.AccountFinalizer),
			"finalizers %v (race run: %v); want the operator's and %s", got.Finalizers, race.done.Load(), foreignFinalizer)
	})
}
