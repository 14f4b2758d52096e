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
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// writeIfChanged writes a config file only when its content differs: kube-proxy exits
// whenever its config file changes, even to the same bytes.
func writeIfChanged(path, content string) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, []byte(content)) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomic(path, []byte(content), 0o644)
}

func containerdSocket() string { return filepath.Join(runDir, "containerd.sock") }

// containerdConfig runs runc through the v2 shim on cgroupfs (the machine has a cgroup
// v1 hierarchy with a tmpfs root). restrict_oom_score_adj: root lacks CAP_SYS_RESOURCE
// here, so without it the kubelet's oom_score_adj of -998 makes every pod sandbox
// fail in runc ("can't get final child's PID from pipe: EOF").
func containerdConfig(l layout) string {
	return fmt.Sprintf(`version = 2
root = %q
state = %q
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = %q

[ttrpc]
  address = %q

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %q
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "/usr/sbin/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %q
`, l.path("containerd", "root"), filepath.Join(runDir, "containerd"), containerdSocket(),
		containerdSocket()+".ttrpc", pauseImage, l.path("cni"))
}

// cniConfig puts pods on the node's bridge with addresses from the pod network, and
// masquerades nothing: no pod packet is rewritten to leave the machine.
func cniConfig(l layout) string {
	return fmt.Sprintf(`{
  "cniVersion": "0.4.0",
  "name": "ec2op",
  "plugins": [
    {
      "type": "bridge",
      "bridge": %q,
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": %q,
        "ranges": [[{"subnet": %q, "rangeStart": "10.244.1.0", "gateway": %q}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`, bridgeName, l.path("cni-ipam"), podCIDR, nodeIP)
}

// kubeletConfig: cgroupfs and failCgroupV1 false for this machine's cgroup v1;
// resolvConf empty so pods get no upstream resolver (only the cluster's DNS, which
// does not forward); eviction thresholds low, so a busy shared disk does not evict the
// tests' pods; syncFrequency 10s (default 1m), so that a Secret that changes under a
// running pod reaches its volume within seconds: the suite proves that the manager takes
// the service CA's certificate without a restart, and waited up to 90 s for the kubelet.
func kubeletConfig(l layout) string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %s
port: %d
healthzBindAddress: 127.0.0.1
healthzPort: 10248
readOnlyPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %q}
authorization: {mode: Webhook}
tlsCertFile: %q
tlsPrivateKeyFile: %q
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://%s
clusterDNS: [%s]
clusterDomain: cluster.local
resolvConf: ""
serializeImagePulls: false
syncFrequency: 10s
maxPods: 110
evictionHard:
  memory.available: "100Mi"
  nodefs.available: "1%%"
  imagefs.available: "1%%"
  nodefs.inodesFree: "1%%"
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
rotateCertificates: false
serverTLSBootstrap: false
`, nodeIP, kubeletPort, l.pki("ca.crt"), l.pki("kubelet.crt"), l.pki("kubelet.key"), containerdSocket(), dnsServiceIP)
}

// kubeProxyConfig: iptables mode; node ports only on the node's address, so kube-proxy
// does not turn on route_localnet; conntrack limits left as they are.
func kubeProxyConfig(l layout) string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection:
  kubeconfig: %q
hostnameOverride: %s
bindAddress: %s
clusterCIDR: %s
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: ["%s/32"]
conntrack:
  maxPerCore: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
iptables:
  masqueradeAll: false
`, l.kubeconfig("kube-proxy"), nodeName, nodeIP, podCIDR, nodeIP)
}
