// Package localenv runs the operator's world on one machine: a real kube-apiserver and
// etcd (envtest) with the CRDs installed, and the EC2 emulator on a loopback port. The
// sandbox command and the end-to-end tests both use it, so users try the operator on
// exactly what the tests prove.
package localenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ec2-operator/ec2-operator/internal/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// Options configure Start.
type Options struct {
	// SimAddr is where the EC2 emulator listens; empty picks a free loopback port.
	SimAddr string
	// Sim configures the emulator.
	Sim ec2sim.Config
	// WorkDir receives the kubeconfig; it is created when missing.
	WorkDir string
}

// Env is a running local control plane and EC2 emulator.
type Env struct {
	// Kube is the control plane; Kube.Config is a cluster-admin connection.
	Kube *testenv.Environment
	// Sim is the emulator, for tests that inject faults or count calls.
	Sim *ec2sim.Sim
	// SimURL is the emulator's endpoint, for AWS_ENDPOINT_URL_EC2.
	SimURL string
	// Kubeconfig is the path of a cluster-admin kubeconfig for kubectl and the manager.
	Kubeconfig string
	// KubectlPath is the kubectl binary that came with the control plane.
	KubectlPath string

	server *http.Server
}

// Start starts the control plane and the emulator and writes the kubeconfig.
func Start(opts Options) (*Env, error) {
	if opts.SimAddr == "" {
		opts.SimAddr = "127.0.0.1:0"
	}
	if err := os.MkdirAll(opts.WorkDir, 0o755); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", opts.SimAddr)
	if err != nil {
		return nil, fmt.Errorf("EC2 emulator cannot listen on %s: %w", opts.SimAddr, err)
	}
	sim := ec2sim.New(opts.Sim)
	e := &Env{Sim: sim, SimURL: "http://" + ln.Addr().String(), server: &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = e.server.Serve(ln) }()

	e.Kube, err = testenv.Start()
	if err != nil {
		_ = e.server.Close()
		return nil, err
	}
	e.KubectlPath = e.Kube.ControlPlane.KubectlPath
	if e.KubectlPath == "" {
		e.KubectlPath = filepath.Join(e.Kube.BinaryAssetsDirectory, "kubectl")
	}
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		e.KubectlPath = filepath.Join(dir, "kubectl")
	}
	admin, err := e.Kube.AddUser(envtest.User{Name: "sandbox-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	e.Kubeconfig = filepath.Join(opts.WorkDir, "kubeconfig")
	if err := os.WriteFile(e.Kubeconfig, kubeconfig, 0o600); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	return e, nil
}

// Stop stops the emulator and the control plane. Stop every manager first: the API
// server waits for open watches to end.
func (e *Env) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return errors.Join(e.server.Shutdown(ctx), e.Kube.Stop())
}

// ManagerEnv is the environment for a manager process that talks to this control
// plane and emulator. The credentials are placeholders: the emulator accepts any
// signature, and no real AWS account is involved.
func (e *Env) ManagerEnv() []string {
	return append(os.Environ(),
		"KUBECONFIG="+e.Kubeconfig,
		"AWS_REGION="+ec2sim.DefaultRegion,
		"AWS_ENDPOINT_URL_EC2="+e.SimURL,
		"AWS_ACCESS_KEY_ID=sandbox",
		"AWS_SECRET_ACCESS_KEY=sandbox",
		"AWS_EC2_METADATA_DISABLED=true",
	)
}
