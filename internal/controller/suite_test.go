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
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/accounts"
	"github.com/ec2-operator/ec2-operator/internal/controller/awsaccount"
	"github.com/ec2-operator/ec2-operator/internal/controller/instanceset"
	"github.com/ec2-operator/ec2-operator/internal/controller/requeue"
	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/events"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim/eventbridge"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/sim/sqssim"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// The scenarios here run the real reconciler in a real manager against a real
// kube-apiserver (envtest) and the EC2 emulator over HTTP through the AWS SDK. Each test
// gets its own namespace, emulator and manager, so tests run in parallel without
// seeing each other's objects.

// env is the shared kube-apiserver + etcd, started by the first test that needs it
// (sharedEnv): the pure table tests of the package run without it, in milliseconds.
var (
	env     *testenv.Environment
	envOnce sync.Once
)

// sharedEnv returns the shared envtest, starting it on first use. A failure to start
// it ends the test binary: no scenario here can run without it.
func sharedEnv() *testenv.Environment {
	envOnce.Do(func() {
		var err error
		if env, err = testenv.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	})
	return env
}

func TestMain(m *testing.M) {
	ctrl.SetLogger(testLogger())
	code := m.Run()
	if env != nil {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping envtest:", err)
		}
	}
	os.Exit(code)
}

// harnessOptions tune one test's emulator and reconciler.
type harnessOptions struct {
	sim   ec2sim.Config
	tweak func(*EC2InstanceReconciler)
	// limits, when set, are enforced by the emulator and kept to by the client, as
	// EC2 and the manager do; without them neither throttles.
	limits *ec2limits.Limits
	// events sends the emulator's EC2 events through an emulated SQS queue to an
	// events consumer in the manager, as --events-queue-url does.
	events bool
	// accounts puts the emulator behind an STS endpoint and an account router, with
	// two workload accounts the operator's identity may assume roles in (see
	// accounts_test.go); the harness's own emulator is the operator's account.
	accounts bool
	// extraNamespaces is how many more namespaces the manager watches (h.extraNS).
	extraNamespaces int
	// cluster, when set, is the API server of another cluster for this operator
	// (cluster_test.go); the default is the package's envtest.
	cluster *rest.Config
	// namespace, when set, is the exact name of the test's namespace, so that two
	// clusters can hold the same namespace.
	namespace string
	// sharedSim, when set, is the emulator instead of a new one: another operator's,
	// in the same AWS account. middleware, when set, wraps this operator's endpoint.
	sharedSim  *ec2sim.Sim
	middleware func(http.Handler) http.Handler
	// apiMiddleware, when set, wraps the manager's transport to the API server.
	apiMiddleware func(http.RoundTripper) http.RoundTripper
}

// shippedTimings gives the reconciler the periods the manager ships with (resync,
// attribute resync, poll interval, failure backoff), for tests of reactions that must
// follow an event: with the harness's one-second periods, the next periodic pass
// would hide a missed event.
func shippedTimings(r *EC2InstanceReconciler) {
	r.ResyncPeriod, r.AttributeResyncPeriod = DefaultResyncPeriod, DefaultAttributeResyncPeriod
	r.PollInterval = DefaultPollInterval
	r.MinBackoff, r.MaxBackoff = requeue.DefaultMinBackoff, requeue.DefaultMaxBackoff
}

// both applies two tweaks in order.
func both(a, b func(*EC2InstanceReconciler)) func(*EC2InstanceReconciler) {
	return func(r *EC2InstanceReconciler) { a(r); b(r) }
}

// config is the API server the test's operator and client talk to.
func (o harnessOptions) config() *rest.Config {
	if o.cluster != nil {
		return o.cluster
	}
	return sharedEnv().Config
}

// harness is one test's operator: a namespace, an emulator, and a manager that can be
// stopped and started again (a crash, as far as the operator can tell).
type harness struct {
	t       testing.TB
	ns      string
	sim     *ec2sim.Sim
	k8s     client.WithWatch
	clients *accounts.RegionalClients
	opts    harnessOptions
	simURL  string
	// timeout bounds every wait of the test.
	timeout time.Duration

	// reconciles counts Reconcile calls; apiWrites counts the manager's writes to
	// EC2Instance objects (create, update, patch, delete of the object or its status);
	// outputsWrites its writes to Secrets and ConfigMaps.
	reconciles    atomic.Int64
	apiWrites     atomic.Int64
	outputsWrites atomic.Int64

	// extraNS are the further namespaces of opts.extraNamespaces.
	extraNS []string
	// world holds the STS endpoint and the workload accounts of opts.accounts.
	world *accountWorld
	// stsURL is the STS endpoint: the world's, or one that knows only the operator.
	stsURL string
	// accessKey is the operator's access key; a manager started after it changed acts
	// with other credentials (in the world, another account's).
	accessKey string

	// queue and queueURL are the events queue, when opts.events is set.
	queue    *sqssim.Sim
	queueURL string
	sqsURL   string

	mu   sync.Mutex
	stop context.CancelFunc
	done chan struct{}
	// reconciler is the running manager's reconciler, for tests of what it remembers.
	reconciler *EC2InstanceReconciler
}

func newHarness(t testing.TB, opts harnessOptions) *harness {
	testenv.SkipInUnitTier(t)
	t.Helper()
	if opts.sim.PendingDuration == 0 {
		opts.sim.PendingDuration = 200 * time.Millisecond
	}
	if opts.sim.StoppingDuration == 0 {
		opts.sim.StoppingDuration = 200 * time.Millisecond
	}
	if opts.sim.ShuttingDownDuration == 0 {
		opts.sim.ShuttingDownDuration = 200 * time.Millisecond
	}
	if opts.limits != nil {
		opts.sim.Throttle = opts.limits
	}
	if opts.accounts {
		opts.sim.AccountID = operatorAccount
	}
	sim := opts.sharedSim
	if sim == nil {
		sim = ec2sim.New(opts.sim)
	}
	var world *accountWorld
	var handler http.Handler = sim
	var stsURL string
	if opts.accounts {
		world = newAccountWorld(t, sim, opts.sim)
		handler = world.router
		stsURL = world.stsSrvURL
	} else {
		// The operator reads its own account from STS (sts:GetCallerIdentity) before
		// it launches or replaces anything, as the manager does.
		account := opts.sim.AccountID
		if account == "" {
			account = ec2sim.DefaultAccountID
		}
		stsURL = ownSTS(t, account)
	}
	if opts.middleware != nil {
		handler = opts.middleware(handler)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)

	k8s, err := client.NewWithWatch(opts.config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "ec2-test-", Name: opts.namespace}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, ns: ns.Name, sim: sim, k8s: k8s, opts: opts, timeout: 30 * time.Second, simURL: srv.URL, world: world,
		stsURL: stsURL, accessKey: operatorKey}
	for range opts.extraNamespaces {
		extra := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: ns.Name + "-"}}
		if err := k8s.Create(context.Background(), extra); err != nil {
			t.Fatal(err)
		}
		h.extraNS = append(h.extraNS, extra.Name)
	}
	if opts.events {
		h.queue = sqssim.New(sqssim.Config{Seed: 1})
		h.sqsURL = simtest.Serve(t, h.queue)
		h.queueURL = h.queue.CreateQueue("ec2-operator-events")
		eventbridge.Forward(sim, h.queue, h.queueURL)
		if world != nil {
			// Each workload account's events reach the same queue, as a rule that
			// forwards them to the operator account's event bus does.
			for id, s := range world.sims {
				if id != operatorAccount {
					eventbridge.Forward(s, h.queue, h.queueURL)
				}
			}
		}
	}
	t.Cleanup(h.stopManager)
	h.startManager()
	return h
}

// ForRegion counts reconciles: the reconciler asks for a client once per pass.
func (h *harness) ForRegion(ctx context.Context, region string) (ec2.Client, error) {
	h.reconciles.Add(1)
	return h.clients.ForRegion(ctx, region)
}

// OwnIdentity asks STS who the operator's credentials are.
func (h *harness) OwnIdentity(ctx context.Context, region string, maxAge time.Duration) (accounts.Identity, error) {
	return h.clients.OwnIdentity(ctx, region, maxAge)
}

// ForAccount counts reconciles too.
func (h *harness) ForAccount(ctx context.Context, role accounts.AssumedRole, region string) (ec2.Client, error) {
	h.reconciles.Add(1)
	return h.clients.ForAccount(ctx, role, region)
}

// startManager starts a manager that watches only this test's namespace. Like a new
// operator process, it gets new EC2 clients, with nothing remembered.
func (h *harness) startManager() {
	h.t.Helper()
	cfg := rest.CopyConfig(h.opts.config())
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return &writeCounter{next: rt, writes: &h.apiWrites, paths: []string{"/ec2instances"}}
	})
	// The API server takes an unchanged update without a new resourceVersion, so only
	// the requests tell whether outputs were written.
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return &writeCounter{next: rt, writes: &h.outputsWrites, paths: []string{"/secrets", "/configmaps"}}
	})
	if h.opts.apiMiddleware != nil {
		cfg.Wrap(h.opts.apiMiddleware)
	}
	namespaces := map[string]cache.Config{h.ns: {}}
	for _, n := range h.extraNS {
		namespaces[n] = cache.Config{}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache: cache.Options{
			DefaultNamespaces: namespaces,
			// AWSAccounts are cluster-scoped: each test's manager sees only its own.
			ByObject: map[client.Object]cache.ByObject{
				&computev1alpha1.AWSAccount{}: {Label: labels.SelectorFromSet(labels.Set{testAccountLabel: h.ns})},
			},
		},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		h.t.Fatal(err)
	}
	r := &EC2InstanceReconciler{
		Client:                mgr.GetClient(),
		APIReader:             mgr.GetAPIReader(),
		Recorder:              mgr.GetEventRecorder("ec2-operator"),
		EC2:                   h,
		DefaultRegion:         ec2sim.DefaultRegion,
		ResyncPeriod:          time.Second,
		PollInterval:          100 * time.Millisecond,
		AttributeResyncPeriod: time.Second,
		MinBackoff:            100 * time.Millisecond,
		MaxBackoff:            5 * time.Second,
	}
	if h.opts.tweak != nil {
		h.opts.tweak(r)
	}
	h.clients = accounts.NewRegionalClientsFromConfig(aws.Config{
		Region:      ec2sim.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider(h.accessKey, operatorSecret, ""),
	}, ec2.Options{
		Endpoint: h.simURL, STSEndpoint: h.stsURL, MaxBackoff: 20 * time.Millisecond, NoPacing: h.opts.limits == nil, Limits: h.opts.limits,
		// As in the manager: the resync period, and the poll interval.
		ReadAheadTTL:  r.ResyncPeriod,
		TransitionTTL: r.PollInterval,
		SelectorTTL:   r.ResyncPeriod / 2,
	})
	if err := r.SetupWithManager(mgr); err != nil {
		h.t.Fatal(err)
	}
	accountReconciler := &awsaccount.Reconciler{
		Client: mgr.GetClient(), Accounts: h.clients,
		DefaultRegion: ec2sim.DefaultRegion, MinBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second,
	}
	if err := accountReconciler.SetupWithManager(mgr); err != nil {
		h.t.Fatal(err)
	}
	setReconciler := &instanceset.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("ec2-operator")}
	if err := setReconciler.SetupWithManager(mgr); err != nil {
		h.t.Fatal(err)
	}
	if h.opts.events {
		sqsConfig := simtest.SDKConfig(ec2sim.DefaultRegion, "AKIDEXAMPLE", "not-a-secret")
		sqsConfig.Retryer = nil
		sqsClient := simtest.SQSClient(sqsConfig, h.sqsURL)
		if err := mgr.Add(&events.Consumer{QueueURL: h.queueURL, SQS: sqsClient, Handle: r.HandleEvent,
			Log: testLogger(), WaitTime: time.Second, MinBackoff: 50 * time.Millisecond}); err != nil {
			h.t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			h.t.Errorf("manager: %v", err)
		}
	}()
	h.mu.Lock()
	h.stop, h.done, h.reconciler = cancel, done, r
	h.mu.Unlock()
}

// stopManager stops the manager and waits until it has stopped.
func (h *harness) stopManager() {
	h.mu.Lock()
	stop, done := h.stop, h.done
	h.stop, h.done = nil, nil
	h.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// writeCounter counts the manager's writes (any method but GET) to the resources of
// paths (for example "/ec2instances").
type writeCounter struct {
	next   http.RoundTripper
	writes *atomic.Int64
	paths  []string
}

func (w *writeCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && slices.ContainsFunc(w.paths, func(p string) bool { return strings.Contains(req.URL.Path, p) }) {
		w.writes.Add(1)
	}
	return w.next.RoundTrip(req)
}

// instance returns a valid object named name against the emulator's seeded resources.
func (h *harness) instance(name string) *computev1alpha1.EC2Instance {
	return &computev1alpha1.EC2Instance{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: computev1alpha1.EC2InstanceSpec{
			ImageID:          ec2sim.DefaultImageID,
			InstanceType:     "t3.micro",
			SubnetID:         ec2sim.DefaultSubnetIDs[0],
			SecurityGroupIDs: []string{ec2sim.DefaultSecurityGroupID},
			Tags:             map[string]string{"team": "platform"},
		},
	}
}

func (h *harness) create(obj *computev1alpha1.EC2Instance) {
	h.t.Helper()
	if err := h.k8s.Create(context.Background(), obj); err != nil {
		h.t.Fatalf("creating %s: %v", obj.Name, err)
	}
}

func (h *harness) get(name string) *computev1alpha1.EC2Instance {
	h.t.Helper()
	obj := &computev1alpha1.EC2Instance{}
	if err := h.k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, obj); err != nil {
		h.t.Fatalf("getting %s: %v", name, err)
	}
	return obj
}

// update applies mutate to the latest version of the object, retrying conflicts with
// the operator's own writes.
func (h *harness) update(name string, mutate func(*computev1alpha1.EC2Instance)) {
	h.t.Helper()
	for range 10 {
		obj := h.get(name)
		mutate(obj)
		err := h.k8s.Update(context.Background(), obj)
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "the object has been modified") {
			h.t.Fatalf("updating %s: %v", name, err)
		}
	}
	h.t.Fatalf("updating %s: too many conflicts", name)
}

// eventually polls cond until it returns "" or the timeout passes; cond returns what
// is still missing, which the failure message shows.
func (h *harness) eventually(timeout time.Duration, cond func() string) {
	h.t.Helper()
	deadline := time.Now().Add(timeout)
	var missing string
	for time.Now().Before(deadline) {
		if missing = cond(); missing == "" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.t.Fatalf("timed out after %s: %s", timeout, missing)
}

// waitCondition waits until the object's condition has the status (and the reason,
// when not empty) and returns the object. It accepts a state that already held, so it
// is only for states that could not hold before the test's last action (the object was
// just created); after an action on an existing object use waitConditionSince.
func (h *harness) waitCondition(name, condType string, status metav1.ConditionStatus, reason string) *computev1alpha1.EC2Instance {
	h.t.Helper()
	var obj *computev1alpha1.EC2Instance
	h.eventually(h.timeout, func() string {
		obj = h.get(name)
		c := meta.FindStatusCondition(obj.Status.Conditions, condType)
		if c == nil || c.Status != status || (reason != "" && c.Reason != reason) {
			return fmt.Sprintf("%s: want %s=%s (%s), conditions %+v", name, condType, status, reason, obj.Status.Conditions)
		}
		return ""
	})
	return obj
}

// waitRecorded waits until an instance ID is recorded in the object's status (the
// instance may still be pending) and returns it.
func (h *harness) waitRecorded(name string) string {
	h.t.Helper()
	var id string
	h.eventually(h.timeout, func() string {
		id = h.get(name).Status.InstanceID
		if id == "" {
			return name + " has no instance yet"
		}
		return ""
	})
	return id
}

func (h *harness) waitReady(name string) *computev1alpha1.EC2Instance {
	h.t.Helper()
	return h.waitCondition(name, computev1alpha1.ConditionReady, metav1.ConditionTrue, "")
}

// waitEvent waits for an event with the reason on the object, and returns its note. Any
// such event counts, however old: after an action on an existing object use
// waitEventSince.
func (h *harness) waitEvent(name, reason string) string {
	h.t.Helper()
	var note string
	h.eventually(h.timeout, func() string {
		list := &eventsv1.EventList{}
		if err := h.k8s.List(context.Background(), list, client.InNamespace(h.ns)); err != nil {
			return err.Error()
		}
		var seen []string
		for _, e := range list.Items {
			if e.Regarding.Name == name && e.Reason == reason {
				note = e.Note
				return ""
			}
			seen = append(seen, e.Reason)
		}
		return fmt.Sprintf("no %s event on %s; events: %v", reason, name, seen)
	})
	return note
}

// liveInstances returns the emulator's instances that are not shutting down or
// terminated.
func (h *harness) liveInstances() []ec2sim.InstanceRecord {
	var out []ec2sim.InstanceRecord
	for _, i := range h.sim.Instances() {
		if i.State != ec2sim.StateShuttingDown && i.State != ec2sim.StateTerminated {
			out = append(out, i)
		}
	}
	return out
}

func (h *harness) simInstance(id string) ec2sim.InstanceRecord {
	h.t.Helper()
	inst, ok := h.sim.Instance(id)
	if !ok {
		h.t.Fatalf("emulator has no instance %s", id)
	}
	return inst
}

// deleteObject asks the API server to delete the object.
func (h *harness) deleteObject(name string) {
	h.t.Helper()
	if err := h.k8s.Delete(context.Background(), h.get(name)); err != nil {
		h.t.Fatal(err)
	}
}

// terminating reports, when the emulator's instance is neither shutting down nor
// terminated, what state it is in instead ("" when it is).
func (h *harness) terminating(id string) string {
	if s := h.simInstance(id).State; s != ec2sim.StateShuttingDown && s != ec2sim.StateTerminated {
		return s
	}
	return ""
}

// waitGone waits until the object no longer exists.
func (h *harness) waitGone(name string) {
	h.t.Helper()
	h.eventually(h.timeout, func() string {
		err := h.k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, &computev1alpha1.EC2Instance{})
		if err == nil {
			return name + " still exists"
		}
		if client.IgnoreNotFound(err) != nil {
			return err.Error()
		}
		return ""
	})
}

// mutatingCalls sums the emulator's calls of operations that change something.
func (h *harness) mutatingCalls() int {
	n := 0
	for op, count := range h.sim.CallCounts() {
		if !strings.HasPrefix(op, "Describe") {
			n += count
		}
	}
	return n
}
