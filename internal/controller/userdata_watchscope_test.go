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
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/converge"
)

// storedSources lists, per watch of the test's namespace's Secrets ("*" for the
// whole kind), the names of the Secrets it keeps.
func storedSources(h *harness) map[string][]string {
	w := &h.reconciler.sources
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string][]string{}
	g := w.groups[groupKey{namespace: h.ns, kind: sourceSecret}]
	if g == nil {
		return out
	}
	for name, sw := range g.watches {
		if name == wholeKind {
			name = "*"
		}
		var stored []string
		if sw.informer != nil && sw.informer.HasSynced() {
			for _, o := range sw.informer.GetStore().List() {
				stored = append(stored, o.(*metav1.PartialObjectMetadata).Name)
			}
		}
		slices.Sort(stored)
		out[name] = stored
	}
	return out
}

// TestSourceWatchesKeepWhatObjectsReadAndNotTheRestOfTheNamespace puts the sources
// next to unrelated Secrets: while the objects read up to the named-watch limit (two
// here, so that the test stays small), each source has its own watch that keeps only
// it; the third source replaces them with one watch of the namespace's Secrets, and
// an edit is still seen within seconds with the shipped periods. The watches end
// with the objects.
func TestSourceWatchesKeepWhatObjectsReadAndNotTheRestOfTheNamespace(t *testing.T) {
	t.Parallel()
	const opNS = "ec2-operator-system"
	limit := func(r *EC2InstanceReconciler) { r.sources.namedLimit = 2 }
	h := newHarness(t, harnessOptions{tweak: both(both(asOperator(t, opNS), shippedTimings), limit)})
	h.grantUserData(opNS)
	for i := range 5 {
		h.createSecret(fmt.Sprintf("unrelated-%d", i), "config", "not user data")
	}
	readers := []string{"reads-a", "reads-b", "reads-c"}
	for i, name := range readers {
		source := "boot-" + string(rune('a'+i))
		h.createSecret(source, "user-data", secretUserData)
		obj := h.instance(name)
		obj.Spec.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: source, Key: "user-data"}}
		h.create(obj)
		h.waitReady(name)
		if i == 1 {
			// Two sources: a watch each, keeping only its source.
			want := map[string][]string{"boot-a": {"boot-a"}, "boot-b": {"boot-b"}}
			h.eventually(h.timeout, func() string {
				got := storedSources(h)
				return unless(fmt.Sprint(got) == fmt.Sprint(want), "watches keep %v, want %v", got, want)
			})
		}
	}
	// Three sources, over the limit: one watch of the namespace's Secrets.
	h.eventually(h.timeout, func() string {
		got := storedSources(h)
		return unless(len(got) == 1 && len(got["*"]) == 8, "watches keep %v, want one watch of all 8 Secrets", got)
	})
	m := h.mark("reads-b")
	h.editSecretValue("boot-b", "user-data", strings.Replace(secretUserData, "s3cr3t", "n3w-s3cr3t", 1))
	took := h.waitReaction(m, computev1alpha1.ConditionSynced, metav1.ConditionFalse, converge.ReasonUserDataPending)
	t.Logf("an edit under the namespace's watch was seen in %s", took.Round(time.Millisecond))

	for _, name := range readers {
		h.deleteObject(name)
	}
	for _, name := range readers {
		h.waitGone(name)
	}
	h.eventually(h.timeout, func() string {
		watches, users := h.reconciler.sources.counts()
		return unless(watches == 0 && users == 0, "%d watches for %d objects left", watches, users)
	})
}
