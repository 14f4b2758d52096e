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
	"bytes"
	"context"
	"io"
	"net/http"
	"path"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// secondInstall plays a second operator watching the same namespace: just before each
// of the operator's status writes that carry the object's resourceVersion (the launch
// record), it writes the object's status itself, through its own client and field
// manager, so the API server refuses the operator's write (Conflict) every time.
type secondInstall struct {
	next     http.RoundTripper
	other    client.Client
	fighting atomic.Bool
	// locked counts the operator's status writes with a resourceVersion.
	locked atomic.Int64
}

func (s *secondInstall) RoundTrip(req *http.Request) (*http.Response, error) {
	p := req.URL.Path
	if !s.fighting.Load() || req.Method != http.MethodPatch || !strings.Contains(p, "/ec2instances/") || path.Base(p) != "status" || req.Body == nil {
		return s.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	if bytes.Contains(body, []byte(`"resourceVersion"`)) {
		s.locked.Add(1)
		// .../namespaces/<ns>/ec2instances/<name>/status
		ns, name := path.Base(path.Dir(path.Dir(path.Dir(p)))), path.Base(path.Dir(p))
		s.write(req.Context(), client.ObjectKey{Namespace: ns, Name: name})
	}
	return s.next.RoundTrip(req)
}

// write sets a condition message of its own, as another operator's pass would.
func (s *secondInstall) write(ctx context.Context, key client.ObjectKey) {
	obj := &computev1alpha1.EC2Instance{}
	if err := s.other.Get(ctx, key, obj); err != nil {
		return
	}
	base := obj.DeepCopy()
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{Type: computev1alpha1.ConditionReady, Status: metav1.ConditionFalse,
		Reason: computev1alpha1.ReasonProvisioning, Message: "the second install is launching " + time.Now().Format(time.RFC3339Nano)})
	_ = s.other.Status().Patch(ctx, obj, client.MergeFrom(base))
}

// TestTwoWritersBackOffAndTheSecondWriterIsReported: while another writer's status
// write precedes each of the operator's, the operator's retries back off instead of
// fighting at 10 Hz, and the object says SecondWriter, naming the other field
// manager, with a Warning event. When the other writer stops, the object launches
// once and the report goes.
func TestTwoWritersBackOffAndTheSecondWriterIsReported(t *testing.T) {
	t.Parallel()
	fight := &secondInstall{}
	h := newHarness(t, harnessOptions{
		apiMiddleware: func(rt http.RoundTripper) http.RoundTripper { fight.next = rt; return fight },
		// The report goes a second after the last conflict instead of two minutes,
		// so that the test sees it go.
		tweak: func(r *EC2InstanceReconciler) { r.secondWriterQuiet = time.Second },
	})
	fight.other = client.WithFieldOwner(h.k8s, "second-install")
	fight.fighting.Store(true)
	start := time.Now()
	h.create(h.instance("contested"))

	got := h.waitCondition("contested", computev1alpha1.ConditionSecondWriter, metav1.ConditionTrue, computev1alpha1.ReasonAnotherWriter)
	if c := findCondition(got, computev1alpha1.ConditionSecondWriter); !strings.Contains(c.Message, `"second-install"`) || !strings.Contains(c.Message, h.ns) {
		t.Errorf("SecondWriter should name the other field manager and the namespace: %q", c.Message)
	}
	h.waitEvent("contested", computev1alpha1.ReasonAnotherWriter)
	const window = 10 * time.Second
	time.Sleep(time.Until(start.Add(window)))
	// A fixed 100 ms retry makes about 90 writes in 10 s; doubling from 100 ms, 7.
	if n := fight.locked.Load(); n > 9 {
		t.Errorf("%d conflicting writes in %s: the retries do not back off", n, window)
	} else {
		t.Logf("%d conflicting writes in %s", n, window)
	}
	if n := h.sim.Calls("RunInstances"); n != 0 {
		t.Errorf("RunInstances called %d times before the launch record was written", n)
	}

	fight.fighting.Store(false)
	h.waitReady("contested")
	if n := len(h.liveInstances()); n != 1 {
		t.Errorf("%d live instances after the fight, want 1", n)
	}
	h.eventually(h.timeout, func() string {
		c := meta.FindStatusCondition(h.get("contested").Status.Conditions, computev1alpha1.ConditionSecondWriter)
		return unless(c == nil, "SecondWriter still reported after the writes stopped: %+v", c)
	})
}
