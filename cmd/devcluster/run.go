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

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Versions, places and addresses of the node. The Makefile builds the binaries there.
const (
	k8sVersion   = "1.37.2"
	envtestDir   = "bin/k8s/" + k8sVersion + "-linux-amd64"
	nodeBinDir   = "bin/cluster/node-" + k8sVersion
	pauseImage   = "localhost/cluster/pause:3.10"
	corednsImage = "localhost/cluster/coredns:v1.15.0"

	nodeName = "ec2op-node"
	// bridgeName is the node's own bridge. Pods and the node's address live on it and
	// nowhere else, so nothing of the cluster is routed off the machine.
	bridgeName  = "ec2op0"
	nodeIP      = "10.244.0.1"
	podCIDR     = "10.244.0.0/16"
	serviceCIDR = "10.96.0.0/16"
	// kubernetesServiceIP and dnsServiceIP are the first and tenth Service addresses,
	// as kubeadm uses them.
	kubernetesServiceIP = "10.96.0.1"
	dnsServiceIP        = "10.96.0.10"
	// The ports stay away from envtest's (random, 127.0.0.1) and from a kubeadm
	// cluster's defaults, so the tests of other packages never clash with the node.
	apiserverPort = 16443
	etcdPort      = 12379
	etcdPeerPort  = 12380
	kubeletPort   = 10250
	// runDir holds sockets and pid files; unix socket paths must stay short.
	runDir = "/run/ec2op-cluster"
)

// layout is where the node keeps its files, under the repository's bin/cluster.
type layout struct {
	root  string // the repository root
	state string // bin/cluster/state: PKI, etcd data, images, kubelet and containerd roots
}

func (l layout) bin(name string) string {
	switch name {
	case "kube-apiserver", "etcd", "kubectl":
		return filepath.Join(l.root, envtestDir, name)
	}
	return filepath.Join(l.root, nodeBinDir, name)
}

func (l layout) path(parts ...string) string {
	return filepath.Join(append([]string{l.state}, parts...)...)
}
func (l layout) pki(name string) string { return l.path("pki", name) }
func (l layout) kubeconfig(user string) string {
	return l.path("kubeconfig", user+".kubeconfig")
}
func (l layout) log(name string) string { return l.path("logs", name+".log") }

func run(command string, args []string) error {
	fs := flag.NewFlagSet("cluster "+command, flag.ContinueOnError)
	root := fs.String("root", ".", "repository root")
	fresh := fs.Bool("fresh", false, "up: start from an empty etcd and kubelet state (images and certificates are kept)")
	purge := fs.Bool("purge", false, "down: also delete the cluster's state (etcd, kubelet, containerd), keeping binaries")
	if err := fs.Parse(args); err != nil {
		return err
	}
	absRoot, err := filepath.Abs(*root)
	if err != nil {
		return err
	}
	l := layout{root: absRoot, state: filepath.Join(absRoot, "bin", "cluster", "state")}
	switch command {
	case "up":
		return up(l, *fresh)
	case "down":
		return down(l, *purge)
	case "env":
		fmt.Printf("export KUBECONFIG=%s\n", l.kubeconfig("admin"))
		fmt.Printf("# node address (the API server listens on :%d; emulators for pods listen here too): %s\n", apiserverPort, nodeIP)
		return nil
	case "images":
		// Pack and import the registered component images into the running node.
		return importComponents(l)
	case "import":
		if fs.NArg() == 0 {
			return fmt.Errorf("import: name OCI layout directories")
		}
		for _, dir := range fs.Args() {
			if err := importLayout(l, dir); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown command %q (want %s)", command, strings.Join([]string{"up", "down", "env", "images", "import"}, ", "))
}

// must exits the program with a message when the host lacks a prerequisite the tool
// cannot install.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
