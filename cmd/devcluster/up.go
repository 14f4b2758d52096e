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
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// up brings the node to Ready with DNS, from whatever state it is in: a daemon that
// already runs (the very program in its pid file) is left alone, so up is idempotent.
func up(l layout, fresh bool) error {
	began := time.Now()
	if err := ensurePackages(); err != nil {
		return err
	}
	for _, dir := range []string{runDir, l.state} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if fresh {
		if err := down(l, true); err != nil {
			return err
		}
	}
	if err := prepareHost(l); err != nil {
		return err
	}
	if err := ensurePKI(l); err != nil {
		return err
	}
	if err := startControlPlane(l); err != nil {
		return err
	}
	if err := startWorker(l); err != nil {
		return err
	}
	if err := applyAddons(l); err != nil {
		return err
	}
	fmt.Printf("cluster up in %.0fs: export KUBECONFIG=%s\n", time.Since(began).Seconds(), l.kubeconfig("admin"))
	return nil
}

// prepareHost records the host's settings, then changes what the node needs.
func prepareHost(l layout) error {
	if err := saveHostState(l); err != nil {
		return err
	}
	if err := ensureBridge(); err != nil {
		return err
	}
	if err := setSysctl("net.bridge.bridge-nf-call-iptables", "1"); err != nil {
		return err
	}
	if err := setSysctl("net.ipv4.ip_forward", "1"); err != nil {
		return err
	}
	return ensureIsolation()
}

func startControlPlane(l layout) error {
	ready := map[string]func() error{
		"etcd":                    httpOK(etcdURL() + "/health"),
		"kube-apiserver":          apiserverReady(l),
		"kube-controller-manager": func() error { return nil },
		"kube-scheduler":          func() error { return nil },
	}
	for _, d := range controlPlane(l) {
		if err := start(l, d); err != nil {
			return err
		}
		if err := waitUntil(d.name+" (log: "+l.log(d.name)+")", 90*time.Second, ready[d.name]); err != nil {
			return err
		}
	}
	return nil
}

func startWorker(l layout) error {
	files := map[string]string{
		l.path("containerd.toml"):          containerdConfig(l),
		l.path("cni", "10-ec2op.conflist"): cniConfig(l),
		l.path("kubelet.yaml"):             kubeletConfig(l),
		l.path("kube-proxy.yaml"):          kubeProxyConfig(l),
	}
	for path, content := range files {
		if err := writeIfChanged(path, content); err != nil {
			return err
		}
	}
	ds := workerDaemons(l)
	if err := start(l, ds[0]); err != nil {
		return err
	}
	if err := waitUntil("containerd (log: "+l.log("containerd")+")", 60*time.Second, socketUp(containerdSocket())); err != nil {
		return err
	}
	// The sandbox image must be there before the kubelet starts its first pod: nothing
	// can be pulled.
	if err := importComponents(l); err != nil {
		return err
	}
	if err := start(l, ds[1]); err != nil {
		return err
	}
	if err := waitUntil("node Ready (log: "+l.log("kubelet")+")", 120*time.Second, nodeReady(l)); err != nil {
		return err
	}
	st, err := loadHostState(l)
	if err != nil {
		return err
	}
	// The kubelet changed these at start; nothing needs them afterwards.
	if err := restoreSysctls(st, kubeletSysctls); err != nil {
		return err
	}
	return start(l, ds[2])
}

func nodeReady(l layout) func() error {
	return func() error {
		out, err := kubectl(l, "get", "node", nodeName, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		if err != nil {
			return err
		}
		if out != "True" {
			return fmt.Errorf("node Ready=%q", out)
		}
		return nil
	}
}

// kubectl runs kubectl as the cluster's admin.
func kubectl(l layout, args ...string) (string, error) {
	return kubectlIn(l, "", args...)
}

// kubectlIn runs kubectl with stdin.
func kubectlIn(l layout, stdin string, args ...string) (string, error) {
	cmd := exec.Command(l.bin("kubectl"), append([]string{"--kubeconfig=" + l.kubeconfig("admin")}, args...)...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}
