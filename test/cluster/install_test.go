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
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// testOwnNamespaceInstall is OperatorHub's default install: everything in one
// namespace that enforces Pod Security "restricted". It returns the namespace, where
// the operator stays installed for the monitoring and scorecard tests.
func testOwnNamespaceInstall(t *testing.T, c *Cluster) string {
	const ns = "ec2-operator-own"
	c.subscribe(t, ns, []string{ns}, c.CatalogImage)
	c.checkUnpackJobs(t, ns)
	c.checkOperatorPod(t, ns)
	c.checkConsoleObjects(t)
	c.checkEventReaction(t, ns)
	c.checkSampleLifecycle(t, ns, ns)
	return ns
}

// checkEventReaction: an instance stopped outside Kubernetes is started again soon
// after EC2's state-change event reaches the operator's queue, with the shipped resync
// periods (with a queue, the periodic re-read is hours apart, so only the event can
// explain a reaction within two minutes).
func (c *Cluster) checkEventReaction(t testing.TB, ns string) {
	t.Helper()
	ctx := context.Background()
	obj := &computev1alpha1.EC2Instance{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "evented"},
		Spec: computev1alpha1.EC2InstanceSpec{
			ImageID: "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64", InstanceType: "t3.micro",
		},
	}
	if err := c.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	c.waitFleetReady(t, ns, []string{obj.Name}, 3*time.Minute)
	if err := c.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	id := obj.Status.InstanceID
	if err := c.AWS.Sim.StopInstance(id); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	c.WaitFor(t, 2*time.Minute, "the instance stopped outside Kubernetes started again", func() (bool, error) {
		got := &computev1alpha1.EC2Instance{}
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
			return false, err
		}
		rec, _ := c.AWS.Sim.Instance(id)
		started := got.Status.LastStartAttempt != nil && (rec.State == ec2sim.StatePending || rec.State == ec2sim.StateRunning)
		return started, fmt.Errorf("instance %s is %s, last start attempt %v", id, rec.State, got.Status.LastStartAttempt)
	})
	t.Logf("an out-of-band stop was undone %.0fs after it, through EC2's events (%d ReceiveMessage calls)", time.Since(stopped).Seconds(), c.Queue.Calls("ReceiveMessage"))
	if err := c.Client.Delete(ctx, obj); err != nil {
		t.Fatal(err)
	}
}

// allNamespacesNS is where the AllNamespaces install lives: the default namespace.
const allNamespacesNS = "ec2-operator-system"

// testAllNamespacesInstall installs into ec2-operator-system for every namespace: OLM
// lifts the CSV's permissions to a ClusterRole, and the operator acts in a namespace
// of another team. The install stays for the scorecard test.
func testAllNamespacesInstall(t *testing.T, c *Cluster) {
	const team = "team-all-namespaces"
	c.subscribe(t, allNamespacesNS, nil, c.CatalogImage)
	c.checkOperatorPod(t, allNamespacesNS)
	c.restrictedNamespace(t, team)
	c.checkSampleLifecycle(t, team, allNamespacesNS)
	c.checkSetLifecycle(t, team)
	c.Kubectl(t, "delete", "namespace", team, "--wait=true", "--timeout=180s")
}

// podPhases names each pod with its phase, and whether it is being deleted.
func podPhases(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		s := p.Name + " " + string(p.Status.Phase)
		if p.DeletionTimestamp != nil {
			s += " (terminating)"
		}
		out = append(out, s)
	}
	return out
}

// checkOperatorPod: the operator's Deployment is available with one pod that the
// kubelet's readiness probe passed and that did not restart (the liveness probe
// passes too, or the kubelet would have restarted it), running as non-root with a
// read-only root filesystem, from the image the CSV names by digest.
func (c *Cluster) checkOperatorPod(t testing.TB, ns string) {
	t.Helper()
	c.Kubectl(t, "-n", ns, "rollout", "status", "deployment/"+managerDeployment, "--timeout=180s")
	dep := &appsv1.Deployment{}
	if err := c.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: managerDeployment}, dep); err != nil {
		t.Fatal(err)
	}
	// A rollout is through once the new pod is available; the pod it replaces may
	// still be shutting down (releasing its lease, finishing its reconciles) and is
	// listed until it is gone, which takes at most its grace period.
	pods := &corev1.PodList{}
	began := time.Now()
	c.WaitFor(t, 2*time.Minute, "one operator pod, the replaced ones gone", func() (bool, error) {
		if err := c.Client.List(context.Background(), pods, client.InNamespace(ns), client.MatchingLabels(dep.Spec.Selector.MatchLabels)); err != nil {
			return false, err
		}
		return len(pods.Items) == 1 && pods.Items[0].DeletionTimestamp == nil, fmt.Errorf("%d operator pods: %v", len(pods.Items), podPhases(pods.Items))
	})
	if waited := time.Since(began); waited > 2*time.Second {
		t.Logf("the replaced operator pod was gone %s after the rollout", waited.Round(time.Second))
	}
	pod := pods.Items[0]
	if !podReady(&pod) {
		t.Errorf("operator pod %s is not Ready", pod.Name)
	}
	want := dep.Spec.Template.Spec.Containers[0].Image
	for _, st := range pod.Status.ContainerStatuses {
		if st.RestartCount != 0 {
			t.Errorf("container %s restarted %d times", st.Name, st.RestartCount)
		}
		if st.Name == dep.Spec.Template.Spec.Containers[0].Name && st.ImageID == "" {
			t.Errorf("container %s has no image ID (image %s)", st.Name, want)
		}
	}
	for _, ctr := range pod.Spec.Containers {
		if ctr.LivenessProbe == nil || ctr.ReadinessProbe == nil {
			t.Errorf("container %s lacks a liveness or readiness probe", ctr.Name)
		}
	}
	// Its log, through the kubelet, as a user reads it.
	if logs := c.Kubectl(t, "-n", ns, "logs", pod.Name, "-c", dep.Spec.Template.Spec.Containers[0].Name); logs == "" {
		t.Errorf("operator pod %s has logged nothing", pod.Name)
	}
	t.Logf("operator pod %s runs %s", pod.Name, want)
}

// checkSampleLifecycle applies the shipped sample with kubectl in ns: it becomes Ready
// with a running instance in the emulator, its outputs are written once the namespace
// grants it to the operator of opNS, and deleting it terminates the instance and
// garbage-collects the outputs.
func (c *Cluster) checkSampleLifecycle(t testing.TB, ns, opNS string) {
	t.Helper()
	ctx := context.Background()
	c.Kubectl(t, "-n", ns, "apply", "-f", filepath.Join(c.Root, "config", "samples", "compute_v1alpha1_ec2instance.yaml"))
	obj := &computev1alpha1.EC2Instance{}
	key := client.ObjectKey{Namespace: ns, Name: "web-1"}
	c.WaitFor(t, 3*time.Minute, "the sample EC2Instance Ready", func() (bool, error) {
		if err := c.Client.Get(ctx, key, obj); err != nil {
			return false, err
		}
		ready := meta.FindStatusCondition(obj.Status.Conditions, "Ready")
		if ready == nil || ready.Status != "True" {
			return false, fmt.Errorf("Ready %+v", ready)
		}
		return true, nil
	})
	id := obj.Status.InstanceID
	if rec, ok := c.AWS.Sim.Instance(id); !ok || rec.State != ec2sim.StateRunning {
		t.Fatalf("instance %s of the Ready sample: %+v (found %v)", id, rec.State, ok)
	}
	outputs := c.checkOutputs(t, ns, opNS, "web-1", id)
	c.Kubectl(t, "-n", ns, "delete", "ec2instance", "web-1", "--wait=false")
	c.WaitFor(t, 3*time.Minute, "the sample gone and its instance terminated", func() (bool, error) {
		err := c.Client.Get(ctx, key, &computev1alpha1.EC2Instance{})
		if !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("the object is still there (%v)", err)
		}
		rec, _ := c.AWS.Sim.Instance(id)
		return rec.State == ec2sim.StateTerminated || rec.State == ec2sim.StateShuttingDown, fmt.Errorf("instance %s is %s", id, rec.State)
	})
	// The garbage collector (kube-controller-manager) deletes the outputs with their
	// owner.
	c.WaitFor(t, 2*time.Minute, "the outputs ConfigMap garbage-collected", func() (bool, error) {
		err := c.Client.Get(ctx, outputs, &corev1.ConfigMap{})
		return apierrors.IsNotFound(err), fmt.Errorf("ConfigMap %s: %v", outputs, err)
	})
}

// checkOutputs sets spec.outputsTo as a namespace user would: the object says that the
// namespace has not granted it, with the command; a namespace admin runs that command,
// which binds the role the OLM-installed operator then really holds, and the ConfigMap
// appears with the instance's coordinates.
func (c *Cluster) checkOutputs(t testing.TB, ns, opNS, name, id string) client.ObjectKey {
	t.Helper()
	c.Kubectl(t, "-n", ns, "patch", "ec2instance", name, "--type=merge",
		"-p", `{"spec":{"outputsTo":{"name":"`+name+`-coordinates"}}}`)
	var command string
	c.WaitFor(t, 2*time.Minute, "OutputsNotGranted naming the grant", func() (bool, error) {
		obj := &computev1alpha1.EC2Instance{}
		if err := c.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(obj.Status.Conditions, computev1alpha1.ConditionOutputsWritten)
		if cond == nil || cond.Reason != computev1alpha1.ReasonOutputsNotGranted {
			return false, fmt.Errorf("OutputsWritten %+v", cond)
		}
		_, command, _ = strings.Cut(cond.Message, "grants it with: ")
		return true, nil
	})
	want := "kubectl create rolebinding ec2-operator-outputs-writer --namespace " + ns +
		" --clusterrole=ec2-operator-outputs-writer --serviceaccount=" + opNS + ":ec2-operator-controller-manager"
	if command != want {
		t.Fatalf("the refusal names %q, want %q", command, want)
	}
	c.Kubectl(t, strings.Fields(command)[1:]...)
	key := client.ObjectKey{Namespace: ns, Name: name + "-coordinates"}
	c.WaitFor(t, 3*time.Minute, "the outputs ConfigMap written", func() (bool, error) {
		cm := &corev1.ConfigMap{}
		if err := c.Client.Get(context.Background(), key, cm); err != nil {
			return false, err
		}
		return cm.Data["instanceId"] == id && cm.Data["privateIp"] != "", fmt.Errorf("data %v", cm.Data)
	})
	return key
}
