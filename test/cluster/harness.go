//go:build cluster

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

package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/localenv"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim/eventbridge"
	"github.com/ec2-operator/ec2-operator/internal/sim/sqssim"
)

// nodeIP is the node's address (cmd/devcluster): the API server, and the emulators the
// operator's pods call, listen there.
const nodeIP = "10.244.0.1"

// Cluster is the running node as the tests see it.
type Cluster struct {
	Root       string // repository root
	Kubeconfig string // cluster-admin kubeconfig
	Config     *rest.Config
	Client     client.Client
	NodeIP     string
	// AWS is the emulated AWS world (EC2 of two accounts, STS) on the node's address.
	AWS *localenv.Env
	// EC2Endpoint and STSEndpoint are the emulators' URLs, reachable from pods.
	EC2Endpoint, STSEndpoint string
	// Queue is the SQS emulator that EC2's events reach (as an EventBridge rule sends
	// them), served at SQSEndpoint; QueueURL is the operator's events queue.
	Queue                 *sqssim.Sim
	SQSEndpoint, QueueURL string
	// CatalogImage is the release catalog image by digest, as OperatorHub's users get it.
	CatalogImage string
	// images maps each component image's tag name to its by-digest name.
	images    map[string]string
	sqsServer *http.Server
}

var scheme = runtime.NewScheme()

func init() {
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, computev1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
}

// connect builds the Cluster for a node that is up, and starts the emulators on its
// address.
func connect(root string) (*Cluster, error) {
	c := &Cluster{Root: root, NodeIP: nodeIP, Kubeconfig: filepath.Join(root, "bin/cluster/state/kubeconfig/admin.kubeconfig")}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("the node is not up (make cluster): %w", err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	c.Config = cfg
	if c.Client, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, "bin/cluster/state/images.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &c.images); err != nil {
		return nil, err
	}
	c.AWS, err = localenv.StartEmulators(localenv.Options{
		SimAddr: net.JoinHostPort(nodeIP, "0"), STSAddr: net.JoinHostPort(nodeIP, "0"),
		// Instances move through pending and stopping as EC2's do, a little faster.
		Sim: ec2sim.Config{Seed: 26, PendingDuration: 2 * time.Second, StoppingDuration: 2 * time.Second, ShuttingDownDuration: 2 * time.Second},
	})
	if err != nil {
		return nil, err
	}
	c.EC2Endpoint, c.STSEndpoint = c.AWS.SimURL, c.AWS.STSURL
	c.Queue = sqssim.New(sqssim.Config{})
	c.QueueURL = c.Queue.CreateQueue("ec2-operator-events")
	eventbridge.Forward(c.AWS.Sim, c.Queue, c.QueueURL)
	ln, err := net.Listen("tcp", net.JoinHostPort(nodeIP, "0"))
	if err != nil {
		return nil, err
	}
	c.SQSEndpoint = "http://" + ln.Addr().String()
	c.sqsServer = &http.Server{Handler: c.Queue, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = c.sqsServer.Serve(ln) }()
	return c, nil
}

// Image is the by-digest name of a component image (cmd/devcluster registers them).
func (c *Cluster) Image(t testing.TB, ref string) string {
	t.Helper()
	d, ok := c.images[ref]
	if !ok {
		t.Fatalf("component image %s is not imported (cmd/devcluster registers the images)", ref)
	}
	return d
}

// Kubectl runs kubectl as the cluster's admin and returns its output.
func (c *Cluster) Kubectl(t testing.TB, args ...string) string {
	t.Helper()
	began := time.Now()
	out, err := c.kubectl("", args...)
	if err != nil {
		t.Fatal(err)
	}
	// Deletions and kubectl wait block until done: log the slow ones as WaitFor does.
	if took := time.Since(began); took >= slowWait {
		t.Logf("kubectl %s took %s", strings.Join(args, " "), took.Round(time.Second))
	}
	return out
}

func (c *Cluster) kubectl(stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.Root, "bin/k8s/1.37.2-linux-amd64/kubectl"), append([]string{"--kubeconfig=" + c.Kubeconfig}, args...)...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// Apply applies a manifest file server-side.
func (c *Cluster) Apply(t testing.TB, manifestPath string) {
	t.Helper()
	c.Kubectl(t, "apply", "--server-side", "--force-conflicts", "-f", manifestPath)
}

// ApplyYAML applies manifests given as text.
func (c *Cluster) ApplyYAML(t testing.TB, manifests string) {
	t.Helper()
	if _, err := c.kubectl(manifests, "apply", "--server-side", "--force-conflicts", "-f", "-"); err != nil {
		t.Fatal(err)
	}
}

// slowWait is how long a wait may take before WaitFor logs it: the suite's time is
// mostly waits, and each run's log then shows which ones grew.
const slowWait = 5 * time.Second

// WaitFor polls cond every second until it holds, failing the test after timeout
// with what it waited for and cond's last error.
func (c *Cluster) WaitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	began := time.Now()
	deadline := began.Add(timeout)
	var last error
	for {
		ok, err := cond()
		if ok {
			if waited := time.Since(began); waited >= slowWait {
				t.Logf("waited %s for %s", waited.Round(time.Second), what)
			}
			return
		}
		last = err
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s (last: %v)", what, timeout, last)
		}
		time.Sleep(time.Second)
	}
}

// PortForward forwards a free local port to a pod's port through the kubelet (as
// kubectl port-forward does) until the test ends, and returns its http URL.
func (c *Cluster) PortForward(t testing.TB, namespace, pod string, port int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	local := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(filepath.Join(c.Root, "bin/k8s/1.37.2-linux-amd64/kubectl"), "--kubeconfig="+c.Kubeconfig,
		"-n", namespace, "port-forward", "pod/"+pod, fmt.Sprintf("%d:%d", local, port), "--address=127.0.0.1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", local)
	c.WaitFor(t, 30*time.Second, "port-forward to "+namespace+"/"+pod, func() (bool, error) {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false, err
		}
		conn.Close()
		return true, nil
	})
	return "http://" + addr
}

// EC2Calls is how many calls of an EC2 action the default account's emulator served.
func (c *Cluster) EC2Calls(t testing.TB, action string) int {
	t.Helper()
	return c.AWS.Sim.Calls(action)
}

// EC2Client is an SDK client of the default account's emulator, as an outside user.
func (c *Cluster) EC2Client(t testing.TB) *ec2.Client {
	t.Helper()
	return ec2.New(ec2.Options{
		Region: ec2sim.DefaultRegion, BaseEndpoint: aws.String(c.EC2Endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("observer", "observer", ""),
	})
}

// OperatorEnv is the environment the operator's pod gets through the Subscription's
// config (or a ClusterExtension's): the emulators instead of AWS, placeholder
// credentials the emulators accept, and the events queue. The resync periods are the
// shipped ones (with a queue, the long ones), so reactions are proven at users' timings.
func (c *Cluster) OperatorEnv() map[string]string {
	env := map[string]string{"EVENTS_QUEUE_URL": c.QueueURL, "AWS_ENDPOINT_URL_SQS": c.SQSEndpoint}
	for _, kv := range c.AWS.AWSEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}
