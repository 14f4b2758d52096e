package e2e

import (
	"net/http/httptest"
	"strings"
	"testing"

	ec2sim "github.com/ec2-operator/ec2-operator/internal/sim/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2/eventbridge"
	sqssim "github.com/ec2-operator/ec2-operator/internal/sim/sqs"
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
