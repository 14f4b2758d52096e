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
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// down stops everything up started, in reverse, and gives the host back as it was:
// pods removed through the CRI (so the CNI plugins release their addresses and
// interfaces), mounts under the node's directories unmounted, the kubelet's cgroups,
// the iptables chains, the bridge and the kernel settings restored. With purge, the
// cluster's state (etcd, the kubelet's) goes too; images and certificates stay.
func down(l layout, purge bool) error {
	var errs []error
	note := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	ds := workerDaemons(l)
	note(stop(ds[2], 10*time.Second))
	if exists(l.kubeconfig("kube-proxy")) {
		// kube-proxy removes its own chains; the error only says some were absent.
		_, _ = sh(l.bin("kube-proxy"), "--cleanup", "--config="+l.path("kube-proxy.yaml"))
	}
	note(stop(ds[1], 15*time.Second))
	if _, ok := running(ds[0]); ok {
		note(removePods())
	}
	note(stop(ds[0], 15*time.Second))
	cp := controlPlane(l)
	for i := len(cp) - 1; i >= 0; i-- {
		note(stop(cp[i], 15*time.Second))
	}
	note(unmountUnder(l.state))
	note(unmountUnder(runDir))
	note(removeCgroups())
	if st, err := loadHostState(l); err == nil {
		note(removeChains(st.Chains))
		note(deleteBridge())
		note(restoreSysctls(st, hostSysctls))
		if len(errs) == 0 {
			note(os.Remove(hostStateFile(l)))
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		note(err)
	}
	if purge {
		for _, dir := range []string{"etcd", "kubelet", "cni-ipam", "logs"} {
			note(os.RemoveAll(l.path(dir)))
		}
	}
	return errors.Join(errs...)
}

// removePods stops and removes every pod sandbox through containerd's CRI, which runs
// the CNI plugins' DEL for each.
func removePods() error {
	conn, err := grpc.NewClient("unix://"+containerdSocket(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	rt := cri.NewRuntimeServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	list, err := rt.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{})
	if err != nil {
		return fmt.Errorf("list pod sandboxes: %w", err)
	}
	var errs []error
	for _, sb := range list.Items {
		if _, err := rt.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			errs = append(errs, fmt.Errorf("stop pod %s/%s: %w", sb.Metadata.GetNamespace(), sb.Metadata.GetName(), err))
			continue
		}
		if _, err := rt.RemovePodSandbox(ctx, &cri.RemovePodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			errs = append(errs, fmt.Errorf("remove pod %s/%s: %w", sb.Metadata.GetNamespace(), sb.Metadata.GetName(), err))
		}
	}
	return errors.Join(errs...)
}

// unmountUnder unmounts every mount below dir, deepest first (volumes, shm, overlays
// and network namespaces the kubelet and containerd left).
func unmountUnder(dir string) error {
	data, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return err
	}
	prefix := filepath.Clean(dir) + "/"
	var points []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && strings.HasPrefix(unescapeMount(f[1])+"/", prefix) {
			points = append(points, unescapeMount(f[1]))
		}
	}
	sort.Slice(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	var errs []error
	for _, p := range points {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

func unescapeMount(s string) string {
	return strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace(s)
}

// removeCgroups removes the kubelet's cgroups (kubepods*) in every hierarchy, deepest
// first; they are empty once the pods are gone.
func removeCgroups() error {
	var dirs []string
	roots, _ := filepath.Glob("/sys/fs/cgroup/*")
	for _, root := range roots {
		for _, top := range []string{"kubepods", "kubepods.slice"} {
			_ = filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					dirs = append(dirs, path)
				}
				return nil
			})
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	var errs []error
	for _, d := range dirs {
		if err := syscall.Rmdir(d); err != nil && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("remove cgroup %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}
