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

package mustgather

import (
	"context"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxLogBytes bounds each container's log in the archive: the newest bytes are kept.
// The manager logs a line or two per reconcile, so this is days of a quiet fleet.
const maxLogBytes = 16 << 20

// gatherLogs writes the current and previous logs of every container of the
// operator's pods in a namespace. The operator never logs credentials or user data
// (its log calls name objects and AWS error codes), so the logs are copied as they are.
func (g *Gatherer) gatherLogs(ctx context.Context, namespace string) {
	pods, err := g.Core.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=ec2-operator"})
	if err != nil {
		g.logf("pods in %s for logs: %v", namespace, err)
		g.failures++
		return
	}
	for _, pod := range pods.Items {
		for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
			status, started := containerStarted(pod, c.Name)
			if !started {
				// A container that never ran (an image that cannot be pulled, a pod not
				// scheduled) has no log; its pod's status, gathered above, says why.
				g.logf("namespaces/%s/pods/%s/%s: no log, the container has not run", pod.Namespace, pod.Name, c.Name)
				continue
			}
			g.containerLog(ctx, pod, c.Name, false)
			if status.RestartCount > 0 {
				g.containerLog(ctx, pod, c.Name, true)
			}
		}
	}
}

// containerLog writes one log as oc adm inspect names it.
func (g *Gatherer) containerLog(ctx context.Context, pod corev1.Pod, container string, previous bool) {
	limit := int64(maxLogBytes)
	opts := &corev1.PodLogOptions{Container: container, Previous: previous, Timestamps: true, LimitBytes: &limit}
	if !g.LogsSince.IsZero() {
		opts.SinceTime = &metav1.Time{Time: g.LogsSince}
	}
	file := "current.log"
	if previous {
		file = "previous.log"
	}
	path := fmt.Sprintf("namespaces/%s/pods/%s/%s/%s/logs/%s", pod.Namespace, pod.Name, container, container, file)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	stream, err := g.Core.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, opts).Stream(ctx)
	if err != nil {
		g.logf("%s: %v", path, err)
		g.failures++
		return
	}
	defer stream.Close()
	data, err := io.ReadAll(stream)
	if err != nil {
		g.logf("%s: %v", path, err)
		g.failures++
	}
	if err := g.out.writeFile(path, data); err != nil {
		g.logf("%s: %v", path, err)
		g.failures++
		return
	}
	g.logf("%s: %d bytes", path, len(data))
}

// containerStarted returns a container's status and whether it has run, so that the
// kubelet holds a log of it (and of the instance before, when it restarted).
func containerStarted(pod corev1.Pod, container string) (corev1.ContainerStatus, bool) {
	for _, statuses := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, s := range statuses {
			if s.Name == container {
				return s, s.State.Running != nil || s.State.Terminated != nil || s.RestartCount > 0
			}
		}
	}
	return corev1.ContainerStatus{}, false
}
