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

// Command cluster brings up, and takes down, a real single-node Kubernetes cluster on
// this machine for the end-to-end tests and for people to explore: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, a kubelet whose pods are runc containers
// under containerd, kube-proxy and CoreDNS. Everything is built from Go modules and
// Debian packages; no image is pulled from a registry (component images are packed from
// binaries and imported). See docs/real-cluster.md.
//
// Usage:
//
//	cluster up        start the node (idempotent; state is kept under bin/cluster)
//	cluster down      stop everything it started and restore the host's settings
//	cluster env       print KUBECONFIG and the node address for a shell
//	cluster images    pack and import the registered component images (the node must be up)
//	cluster import DIR...  import OCI layouts into the node's containerd
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cluster up|down|env|import")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}
