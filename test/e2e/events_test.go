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

package e2e

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim/eventbridge"
	"github.com/ec2-operator/ec2-operator/internal/sim/sqssim"
)

// TestTheManagerReadsEC2EventsFromItsQueue runs the manager binary with
// --events-queue-url and --sqs-endpoint against an emulated queue that the emulator's
// EC2 events reach, as an EventBridge rule would send them, and a one-hour resync: an
// instance stopped outside Kubernetes is started again at once, which only the event
// can explain.
func TestTheManagerReadsEC2EventsFromItsQueue(t *testing.T) {
	t.Parallel()
	queue := sqssim.New(sqssim.Config{})
	srv := httptest.NewServer(queue)
	t.Cleanup(srv.Close)
	queueURL := queue.CreateQueue("ec2-operator-events-e2e")
	// The emulator is shared by the suite: this queue receives every test's events,
	// and the manager, watching one namespace, ignores the others'.
	eventbridge.Forward(env.Sim, queue, queueURL)

	ns := newNamespace(t, "events")
	mgr := startManager(t, "events", ns, "--events-queue-url="+queueURL, "--sqs-endpoint="+srv.URL, "--resync-period=1h")
	createInstance(t, ns, "evented-1")
	obj := waitReady(t, ns, "evented-1")
	id := obj.Status.InstanceID

	if err := env.Sim.StopInstance(id); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, func() string {
		st := getInstance(t, ns, "evented-1").Status
		if st.LastStartAttempt == nil {
			return "the operator has not started the instance stopped outside Kubernetes"
		}
		if s := simInstance(t, id).State; s != ec2sim.StatePending && s != ec2sim.StateRunning {
			return "instance is " + s
		}
		return ""
	})
	if n := queue.Calls("ReceiveMessage"); n == 0 {
		t.Error("the manager never read the queue")
	}
	if !strings.Contains(mgr.Log(), queueURL) {
		t.Error("the manager's start-up line does not name the events queue")
	}
}
