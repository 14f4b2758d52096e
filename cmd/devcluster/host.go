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
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// debianPackages are the node's runtime and networking, from Debian: containerd and
// runc run the pods (crun cannot run on this machine's hybrid cgroups), the CNI
// plugins wire them to the bridge, iptables and conntrack serve kube-proxy; and the one
// program an image needs that no Go module provides.
var debianPackages = map[string]string{
	"/usr/bin/containerd": "containerd",
	"/usr/bin/ctr":        "containerd",
	"/usr/sbin/runc":      "runc",
	"/usr/lib/cni/bridge": "containernetworking-plugins",
	"/usr/sbin/iptables":  "iptables",
	"/usr/sbin/conntrack": "conntrack",
	"/usr/sbin/ip":        "iproute2",
	// busybox's tar is the untar step of operator-sdk scorecard's test pods.
	"/bin/busybox": "busybox-static",
}

// ensurePackages installs the Debian packages the node needs when they are missing.
func ensurePackages() error {
	var missing []string
	seen := map[string]bool{}
	for path, pkg := range debianPackages {
		if !exists(path) && !seen[pkg] {
			missing, seen[pkg] = append(missing, pkg), true
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	fmt.Println(">> apt-get install", strings.Join(missing, " "))
	for _, args := range [][]string{{"update", "-qq"}, append([]string{"install", "-y", "-qq", "--no-install-recommends"}, missing...)} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("apt-get %s: %w", args[0], err)
		}
	}
	return nil
}

// hostSysctls are the kernel settings the node changes. The kubelet rewrites the
// first six when it starts and refuses to start if told not to; the CNI bridge plugin
// turns on forwarding; bridged pod traffic must pass iptables for Service addresses
// to work between pods on the bridge. The machine is shared, so the original values
// are saved before the first change and written back (see restoreKubeletSysctls, down).
var hostSysctls = []string{
	"vm.overcommit_memory", "vm.panic_on_oom", "kernel.panic", "kernel.panic_on_oops",
	"kernel.keys.root_maxkeys", "kernel.keys.root_maxbytes",
	"net.ipv4.ip_forward", "net.bridge.bridge-nf-call-iptables",
}

// kubeletSysctls are the ones the node does not need once the kubelet has started.
var kubeletSysctls = hostSysctls[:6]

func sysctlPath(name string) string {
	return filepath.Join("/proc/sys", strings.ReplaceAll(name, ".", "/"))
}

// hostState is what the host looked like before the node first came up.
type hostState struct {
	Sysctls map[string]string `json:"sysctls"`
	// Chains are the iptables chains that existed before; clean-up never removes them.
	Chains []string `json:"chains"`
}

func hostStateFile(l layout) string { return l.path("host-before.json") }

// saveHostState records the host's settings once, before anything changes them; a
// second up (the node already running, or after a crash) keeps the first record.
func saveHostState(l layout) error {
	if exists(hostStateFile(l)) {
		return nil
	}
	st := hostState{Sysctls: map[string]string{}}
	for _, name := range hostSysctls {
		data, err := os.ReadFile(sysctlPath(name))
		if err != nil {
			return fmt.Errorf("read sysctl %s: %w", name, err)
		}
		st.Sysctls[name] = strings.TrimSpace(string(data))
	}
	chains, err := iptablesChains()
	if err != nil {
		return err
	}
	st.Chains = chains
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(l.state, 0o755); err != nil {
		return err
	}
	return writeAtomic(hostStateFile(l), data, 0o644)
}

func loadHostState(l layout) (*hostState, error) {
	data, err := os.ReadFile(hostStateFile(l))
	if err != nil {
		return nil, err
	}
	var st hostState
	return &st, json.Unmarshal(data, &st)
}

// restoreSysctls writes back the saved values of names.
func restoreSysctls(st *hostState, names []string) error {
	for _, name := range names {
		want, ok := st.Sysctls[name]
		if !ok {
			continue
		}
		if err := setSysctl(name, want); err != nil {
			return err
		}
	}
	return nil
}

func setSysctl(name, value string) error {
	if err := os.WriteFile(sysctlPath(name), []byte(value+"\n"), 0o644); err != nil {
		return fmt.Errorf("set sysctl %s=%s: %w", name, value, err)
	}
	return nil
}

// ensureBridge creates the node's bridge with the node's address. The API server binds
// to that address before any pod exists; the CNI bridge plugin attaches pods to it.
func ensureBridge() error {
	if _, err := sh("ip", "link", "show", bridgeName); err != nil {
		if _, err := sh("ip", "link", "add", bridgeName, "type", "bridge"); err != nil {
			return err
		}
	}
	addrs, err := sh("ip", "-o", "addr", "show", "dev", bridgeName)
	if err != nil {
		return err
	}
	if !strings.Contains(addrs, " "+nodeIP+"/") {
		if _, err := sh("ip", "addr", "add", nodeIP+"/16", "dev", bridgeName); err != nil {
			return err
		}
	}
	_, err = sh("ip", "link", "set", bridgeName, "up")
	return err
}

func deleteBridge() error {
	if _, err := sh("ip", "link", "show", bridgeName); err != nil {
		return nil
	}
	_, err := sh("ip", "link", "delete", bridgeName)
	return err
}
