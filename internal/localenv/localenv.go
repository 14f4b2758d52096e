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

// Package localenv runs the operator's world on one machine: a real kube-apiserver and
// etcd (envtest) with the CRDs installed, and the EC2 emulator on a loopback port. The
// sandbox command and the end-to-end tests both use it, so users try the operator on
// exactly what the tests prove.
//
// The emulator serves two AWS accounts: the default one, which every placeholder key
// acts in, and the account of the shipped AWSAccount sample, reached by assuming its
// role through an emulated STS endpoint with the sandbox's key.
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

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim/accounts"
	"github.com/ec2-operator/ec2-operator/internal/sim/stssim"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// The second account of the local world, as config/samples/compute_v1alpha1_awsaccount.yaml
// names it: its role trusts the sandbox's key when the external ID matches.
const (
	// SampleAccountID is the AWS account of the sample AWSAccount's role.
	SampleAccountID = "111122223333"
	// SampleRoleARN is the sample AWSAccount's roleArn.
	SampleRoleARN = "arn:aws:iam::111122223333:role/ec2-operator"
	// SampleExternalID is the sample AWSAccount's externalId.
	SampleExternalID = "payments-ec2-operator"
	// accessKey is the manager's placeholder key, an IAM user of the default account.
	accessKey = "sandbox"
	// secretKey is its secret, shaped like a real one (AWS's documented example, 40
	// characters): SigV4 derives its HMAC keys from it, and a FIPS 140-only Go binary
	// refuses HMAC keys shorter than 112 bits, as a short placeholder would make them.
	secretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// Options configure Start.
type Options struct {
	// SimAddr is where the EC2 emulator listens; empty picks a free loopback port.
	SimAddr string
	// STSAddr is where the STS emulator listens; empty picks a free loopback port.
	STSAddr string
	// Sim configures the emulator.
	Sim ec2sim.Config
	// WorkDir receives the kubeconfig; it is created when missing.
	WorkDir string
}

// Env is a running local control plane and EC2 emulator.
type Env struct {
	// Kube is the control plane; Kube.Config is a cluster-admin connection.
	Kube *testenv.Environment
	// Sim is the emulator of the default account, for tests that inject faults or
	// count calls.
	Sim *ec2sim.Sim
	// SampleSim is the emulator of SampleAccountID.
	SampleSim *ec2sim.Sim
	// SimURL is the EC2 endpoint of both accounts, for AWS_ENDPOINT_URL_EC2.
	SimURL string
	// STS is the emulated STS endpoint; STSURL is its URL, for AWS_ENDPOINT_URL_STS.
	STS    *stssim.Sim
	STSURL string
	// Kubeconfig is the path of a cluster-admin kubeconfig for kubectl and the manager.
	Kubeconfig string
	// KubectlPath is the kubectl binary that came with the control plane.
	KubectlPath string

	server    *http.Server
	stsServer *http.Server
}

// Start starts the control plane and the emulator and writes the kubeconfig.
func Start(opts Options) (*Env, error) {
	if err := os.MkdirAll(opts.WorkDir, 0o755); err != nil {
		return nil, err
	}
	e, err := StartEmulators(opts)
	if err != nil {
		return nil, err
	}
	e.Kube, err = testenv.Start()
	if err != nil {
		_ = e.server.Close()
		_ = e.stsServer.Close()
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

// StartEmulators serves only the AWS side (EC2 of both accounts, and STS), for a
// control plane that runs elsewhere: the real cluster of test/cluster, whose pods
// reach the emulators on the node's address. Stop them with StopEmulators.
func StartEmulators(opts Options) (*Env, error) {
	if opts.SimAddr == "" {
		opts.SimAddr = "127.0.0.1:0"
	}
	if opts.STSAddr == "" {
		opts.STSAddr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", opts.SimAddr)
	if err != nil {
		return nil, fmt.Errorf("EC2 emulator cannot listen on %s: %w", opts.SimAddr, err)
	}
	stsLn, err := net.Listen("tcp", opts.STSAddr)
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("STS emulator cannot listen on %s: %w", opts.STSAddr, err)
	}
	e := newWorld(opts.Sim)
	e.SimURL, e.STSURL = "http://"+ln.Addr().String(), "http://"+stsLn.Addr().String()
	go func() { _ = e.server.Serve(ln) }()
	go func() { _ = e.stsServer.Serve(stsLn) }()
	return e, nil
}

// StopEmulators stops what StartEmulators started.
func (e *Env) StopEmulators() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return errors.Join(e.server.Shutdown(ctx), e.stsServer.Shutdown(ctx))
}

// Stop stops the emulator and the control plane. Stop every manager first: the API
// server waits for open watches to end.
func (e *Env) Stop() error {
	return errors.Join(e.StopEmulators(), e.Kube.Stop())
}

// newWorld builds the two accounts' emulators, STS, and the handlers that serve them:
// EC2 requests go to the account their key acts in (any unknown placeholder key to the
// default account), and /_sim/ shows the default account's emulator.
func newWorld(cfg ec2sim.Config) *Env {
	defaultAccount := cfg.AccountID
	if defaultAccount == "" {
		defaultAccount = ec2sim.DefaultAccountID
	}
	sim := ec2sim.New(cfg)
	sampleCfg := cfg
	sampleCfg.AccountID, sampleCfg.Seed = SampleAccountID, cfg.Seed+1
	sample := ec2sim.New(sampleCfg)

	sts := stssim.New(stssim.Config{Seed: cfg.Seed})
	sts.AddUser(defaultAccount, accessKey, secretKey)
	sts.AddRole(SampleRoleARN, []string{accessKey}, SampleExternalID)
	router := accounts.NewRouter(sts, map[string]*ec2sim.Sim{defaultAccount: sim, SampleAccountID: sample})
	router.AcceptUnknownKeysAs(defaultAccount)
	mux := http.NewServeMux()
	mux.Handle("/_sim/", sim)
	mux.Handle("/", router)
	return &Env{
		Sim: sim, SampleSim: sample, STS: sts,
		server:    &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		stsServer: &http.Server{Handler: sts, ReadHeaderTimeout: 10 * time.Second},
	}
}

// ManagerEnv is the environment for a manager process that talks to this control
// plane and emulator. The credentials are placeholders: the emulator accepts any
// signature, and no real AWS account is involved; they may assume the sample
// AWSAccount's role.
func (e *Env) ManagerEnv() []string {
	return append(append(os.Environ(), "KUBECONFIG="+e.Kubeconfig), e.AWSEnv()...)
}

// AWSEnv is the AWS part of ManagerEnv: the region, the EC2 and STS endpoints, and
// credentials STS knows (the manager reads its own account from sts:GetCallerIdentity
// before it launches anything), for a manager that runs with another environment
// (an image's).
func (e *Env) AWSEnv() []string {
	return []string{
		"AWS_REGION=" + ec2sim.DefaultRegion,
		"AWS_ENDPOINT_URL_EC2=" + e.SimURL,
		"AWS_ENDPOINT_URL_STS=" + e.STSURL,
		"AWS_ACCESS_KEY_ID=" + accessKey,
		"AWS_SECRET_ACCESS_KEY=" + secretKey,
		"AWS_EC2_METADATA_DISABLED=true",
	}
}
