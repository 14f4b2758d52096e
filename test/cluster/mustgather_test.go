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
	"archive/tar"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// mustGatherAnnotation names the image `oc adm must-gather --all-images` runs for an
// operator, read from its CSV.
const mustGatherAnnotation = "operators.openshift.io/must-gather-image"

// The values the archive must not hold: user data from a ConfigMap, as an application
// team gives it in the operator's namespace, and the external ID of an AWSAccount.
const (
	gatheredUserData   = "#!/bin/sh\necho db-password=must-gather-never-sees-this-31d7\n"
	gatheredExternalID = "must-gather-external-id-8e52"
)

// testMustGather runs the must-gather image the installed CSV names, as `oc adm
// must-gather` runs it (openshift/oc pkg/cli/admin/mustgather: a privileged temporary
// namespace whose default service account is bound to cluster-admin, a pod with the
// gather container, which runs oc's disk usage checker next to /usr/bin/gather under
// /bin/bash, and the copy container, from which the archive is copied out with tar),
// while an EC2Instance whose user data comes from a ConfigMap is Ready. The archive has
// the operator's objects with their conditions and events, OLM's objects, the
// monitoring objects and the operator's log, and holds no secret value.
func testMustGather(t *testing.T, c *Cluster, opNS string) {
	ctx := context.Background()
	csv := c.waitCSV(t, opNS, "ec2-operator.v0.1.0", time.Minute)
	image := csv.Annotations[mustGatherAnnotation]
	if !strings.Contains(image, "-must-gather@sha256:") {
		t.Fatalf("the CSV's %s is %q, not a must-gather image by digest", mustGatherAnnotation, image)
	}
	instance := c.instanceWithSourcedUserData(t, opNS)
	account := &computev1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: "must-gather"}, Spec: computev1alpha1.AWSAccountSpec{
		RoleARN: "arn:aws:iam::111122223333:role/ec2-operator", ExternalID: gatheredExternalID,
		AllowedNamespaces: computev1alpha1.AllowedNamespaces{Names: []string{"nobody"}},
	}}
	if err := c.Client.Create(ctx, account); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.IgnoreNotFound(c.Client.Delete(context.Background(), account)) })

	began := time.Now()
	archive := c.runMustGather(t, image)
	size := 0
	for _, data := range archive {
		size += len(data)
	}
	t.Logf("must-gather took %s and wrote %d files, %d KiB", time.Since(began).Round(time.Second), len(archive), size/1024)

	secretKey := c.OperatorEnv()["AWS_SECRET_ACCESS_KEY"]
	forbidden := map[string]string{
		"the ConfigMap's user data": strings.TrimSpace(gatheredUserData), "the user data as EC2 gets it": base64.StdEncoding.EncodeToString([]byte(gatheredUserData)),
		"the external ID": gatheredExternalID, "the operator's secret access key": secretKey,
	}
	for path, data := range archive {
		for what, value := range forbidden {
			if strings.Contains(data, value) {
				t.Errorf("%s holds %s", path, what)
			}
		}
	}
	ns := "namespaces/" + opNS + "/"
	for _, want := range []struct{ path, holds string }{
		{ns + "compute.ec2-operator.dev/ec2instances.yaml", instance.Status.InstanceID},
		{ns + "compute.ec2-operator.dev/ec2instances.yaml", "name: " + instance.Spec.UserDataFrom.ConfigMapKeyRef.Name},
		{ns + "core/events-ec2instance.yaml", instance.Name},
		{"cluster-scoped-resources/compute.ec2-operator.dev/awsaccounts.yaml", "must-gather"},
		{"cluster-scoped-resources/apiextensions.k8s.io/customresourcedefinitions.yaml", "ec2instances.compute.ec2-operator.dev"},
		{ns + "operators.coreos.com/clusterserviceversions.yaml", "phase: Succeeded"},
		{ns + "operators.coreos.com/subscriptions.yaml", "name: ec2-operator"},
		{ns + "operators.coreos.com/installplans.yaml", "ec2-operator.v0.1.0"},
		{ns + "monitoring.coreos.com/servicemonitors.yaml", "ec2-operator"},
		{ns + "monitoring.coreos.com/prometheusrules.yaml", "EC2OperatorDown"},
		{ns + "apps/deployments.yaml", "name: AWS_SECRET_ACCESS_KEY"},
		{"summary.txt", instance.Status.InstanceID},
	} {
		if data, ok := archive[want.path]; !ok || !strings.Contains(data, want.holds) {
			t.Errorf("%s (present %v) lacks %q", want.path, ok, want.holds)
		}
	}
	pod := c.operatorPod(t, opNS)
	logPath := fmt.Sprintf("%spods/%s/manager/manager/logs/current.log", ns, pod.Name)
	if log := archive[logPath]; !strings.Contains(log, instance.Name) {
		t.Errorf("%s is missing or does not mention %s (%d bytes)", logPath, instance.Name, len(log))
	}
	if t.Failed() {
		t.Logf("gather.log:\n%s", archive["gather.log"])
	}
	// The monitoring test that follows counts the namespace's instances.
	for _, obj := range []client.Object{instance, account} {
		if err := c.Client.Delete(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	c.WaitFor(t, 3*time.Minute, "the gathered instance and account gone", func() (bool, error) {
		errInstance := c.Client.Get(ctx, client.ObjectKeyFromObject(instance), &computev1alpha1.EC2Instance{})
		errAccount := c.Client.Get(ctx, client.ObjectKeyFromObject(account), &computev1alpha1.AWSAccount{})
		return apierrors.IsNotFound(errInstance) && apierrors.IsNotFound(errAccount), fmt.Errorf("instance: %v, account: %v", errInstance, errAccount)
	})
}

// instanceWithSourcedUserData grants the operator the ConfigMaps and Secrets of ns (the
// shipped ec2-operator-userdata-reader role) and creates an EC2Instance whose user data
// comes from a ConfigMap there, and waits until it is Ready. ns is the operator's own
// namespace (an OwnNamespace install watches only it), whose Secrets userDataFrom
// never reads; a ConfigMap is what an application team uses there, and must-gather
// gathers no ConfigMap either.
func (c *Cluster) instanceWithSourcedUserData(t *testing.T, ns string) *computev1alpha1.EC2Instance {
	t.Helper()
	ctx := context.Background()
	source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "boot-script"}, Data: map[string]string{"script": gatheredUserData}}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ec2-operator-userdata-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "ec2-operator-userdata-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: managerDeployment}},
	}
	obj := &computev1alpha1.EC2Instance{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gathered"},
		Spec: computev1alpha1.EC2InstanceSpec{
			ImageID: "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64", InstanceType: "t3.micro",
			UserDataFrom: &computev1alpha1.UserDataSource{ConfigMapKeyRef: &computev1alpha1.ConfigMapKeySelector{Name: source.Name, Key: "script"}},
		},
	}
	for _, o := range []client.Object{source, binding, obj} {
		if err := c.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = c.Client.Delete(context.Background(), binding)
		_ = c.Client.Delete(context.Background(), source)
	})
	c.waitFleetReady(t, ns, []string{obj.Name}, 3*time.Minute)
	if err := c.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	rec, _ := c.AWS.Sim.Instance(obj.Status.InstanceID)
	if string(rec.UserData) != gatheredUserData {
		t.Fatalf("instance %s booted with user data %q, not the ConfigMap's", obj.Status.InstanceID, rec.UserData)
	}
	return obj
}

// ocVolumeChecker is oc's volumeUsageCheckerScript for /must-gather and the gather
// command, as oc formats them into the gather container's command; %[1]d is
// --volume-percentage.
const ocVolumeChecker = `
echo "volume percentage checker started....."
while true; do
usage_percentage=$(df -P "/must-gather" | awk 'NR==2 {print $5}' | sed 's/%%//')
echo "volume usage percentage $usage_percentage"
if [ "$usage_percentage" -gt "%[1]d" ]; then
	echo "Disk usage exceeds the volume percentage of %[1]d for mounted directory. Exiting..."
	# kill gathering process in gather container to prevent disk to use more.
	pkill --signal SIGKILL -f /usr/bin/gather
	exit 1
fi
sleep 5
done`

// volumePercentage is the test's oc adm must-gather --volume-percentage. oc's default,
// 30, stops the gather at once on a node whose disk is fuller than that, as this
// machine's usually is (the emptyDir is on the node's disk), so the test raises it as a
// user on such a node does (oc warns from 80 on).
const volumePercentage = 95

// runMustGather does what oc adm must-gather does with one image and returns the
// archive's files by path.
func (c *Cluster) runMustGather(t *testing.T, image string) map[string]string {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "openshift-must-gather-", Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "privileged", "pod-security.kubernetes.io/audit": "privileged",
		"pod-security.kubernetes.io/warn": "privileged",
	}}}
	if err := c.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "must-gather-", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: ns.Name, UID: ns.UID}}},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: ns.Name}},
	}
	if err := c.Client.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Client.Delete(context.Background(), binding)
		c.Kubectl(t, "delete", "namespace", ns.Name, "--wait=true", "--timeout=120s")
	})
	pod := mustGatherPod(ns.Name, image)
	if err := c.Client.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	var gather *corev1.ContainerStateTerminated
	c.WaitFor(t, 5*time.Minute, "the gather container done", func() (bool, error) {
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
			return false, err
		}
		for _, s := range pod.Status.ContainerStatuses {
			if s.Name == "gather" && s.State.Terminated != nil {
				gather = s.State.Terminated
				return true, nil
			}
		}
		return false, fmt.Errorf("pod %s: %+v", pod.Status.Phase, pod.Status.ContainerStatuses)
	})
	logs, _ := c.kubectl("", "-n", ns.Name, "logs", pod.Name, "-c", "gather")
	if gather.ExitCode != 0 {
		t.Fatalf("the gather container exited %d (%s): %s\n%s", gather.ExitCode, gather.Reason, gather.Message, logs)
	}
	if !strings.Contains(logs, "volume percentage checker started") || !strings.Contains(logs, "volume usage percentage ") {
		t.Errorf("oc's disk usage checker did not run in the image:\n%s", logs)
	}
	// The script's status is sync's, so a gather the checker killed (the node's disk
	// fuller than the percentage) exits 0 too, with what it had written.
	if strings.Contains(logs, "Disk usage exceeds") {
		t.Fatalf("oc's disk usage checker stopped the gather:\n%s", logs)
	}
	archive := c.copyArchive(t, ns.Name, pod.Name)
	if len(archive) == 0 {
		t.Fatalf("the copy container's tar gave no file; the gather's output:\n%s", logs)
	}
	return archive
}

// mustGatherPod is oc's must-gather pod (newPod) for an image and the default command.
func mustGatherPod(ns, image string) *corev1.Pod {
	zero := int64(0)
	mount := []corev1.VolumeMount{{Name: "must-gather-output", MountPath: "/must-gather"}}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "must-gather-", Labels: map[string]string{"app": "must-gather"}},
		Spec: corev1.PodSpec{
			PriorityClassName: "system-cluster-critical",
			RestartPolicy:     corev1.RestartPolicyNever,
			Volumes:           []corev1.Volume{{Name: "must-gather-output", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			Containers: []corev1.Container{{
				Name: "gather", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
				Command: []string{"/bin/bash", "-c", fmt.Sprintf(ocVolumeChecker, volumePercentage) + " & /usr/bin/gather; sync"},
				Env: []corev1.EnvVar{
					{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
					{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
				},
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
				VolumeMounts:             mount,
			}, {
				Name: "copy", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
				Command:                  []string{"/bin/bash", "-c", "trap : TERM INT; sleep infinity & wait"},
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
				VolumeMounts:             mount,
			}},
			NodeSelector:                  map[string]string{corev1.LabelOSStable: "linux"},
			TerminationGracePeriodSeconds: &zero,
			Tolerations:                   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		},
	}
}

// copyArchive copies /must-gather out of the copy container as oc's rsync does when
// the image has no rsync: tar in the container, read here.
func (c *Cluster) copyArchive(t *testing.T, ns, pod string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.Root, "bin/k8s/1.37.2-linux-amd64/kubectl"), "--kubeconfig="+c.Kubeconfig,
		"-n", ns, "exec", pod, "-c", "copy", "--", "tar", "-C", "/must-gather/", "-c", ".")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tar in the copy container: %v: %s", err, stderr.String())
	}
	files := map[string]string{}
	tr := tar.NewReader(&stdout)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatalf("the archive oc would copy: %v", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(hdr.Name, "./")] = string(data)
	}
}
