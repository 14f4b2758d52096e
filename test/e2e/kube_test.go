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

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// Waits are generous: `go test ./...` runs this package next to the other envtest
// packages on two cores, and a state change costs the operator's 5s poll interval.
const (
	waitTimeout   = 90 * time.Second
	kubectlWait   = "--timeout=90s"
	pollInterval  = 100 * time.Millisecond
	kubectlBudget = 120 * time.Second
)

// eventually polls cond until it returns "" or timeout passes; cond returns what is
// still missing, which the failure message shows.
func eventually(t *testing.T, timeout time.Duration, cond func() string) {
	t.Helper()
	simtest.Eventually(t, timeout, pollInterval, cond)
}

// newNamespace creates a namespace for one test. It is not deleted: envtest runs no
// namespace controller, and the control plane goes away with the run.
func newNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-" + prefix + "-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// kubectl runs kubectl against the shared control plane with stdin (may be empty) and
// returns its combined output; it fails the test when kubectl fails.
func kubectl(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := tryKubectl(stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// tryKubectl is kubectl that returns the error instead of failing the test.
func tryKubectl(stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), kubectlBudget)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.KubectlPath, append([]string{"--kubeconfig", env.Kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// instanceManifest is an EC2Instance against the emulator's seeded resources. The image
// goes through SSM resolution, as in the README's sample.
func instanceManifest(ns, name string) string {
	return fmt.Sprintf(`apiVersion: compute.ec2-operator.dev/v1alpha1
kind: EC2Instance
metadata:
  name: %s
  namespace: %s
spec:
  imageId: resolve:ssm:%s
  instanceType: t3.micro
  subnetId: %s
  securityGroupIds:
  - %s
  tags:
    team: platform
`, name, ns, ec2sim.DefaultSSMParameter, ec2sim.DefaultSubnetIDs[0], ec2sim.WebSecurityGroupID)
}

// createInstance applies instanceManifest with kubectl.
func createInstance(t *testing.T, ns, name string) {
	t.Helper()
	kubectl(t, instanceManifest(ns, name), "apply", "-f", "-")
}

// waitReady waits with `kubectl wait` until the object is Ready for its current
// generation, and returns it.
func waitReady(t *testing.T, ns, name string) *computev1alpha1.EC2Instance {
	t.Helper()
	kubectl(t, "", "wait", "-n", ns, "--for=condition=Ready", "ec2/"+name, kubectlWait)
	return getInstance(t, ns, name)
}

// getInstance reads the object through the API.
func getInstance(t *testing.T, ns, name string) *computev1alpha1.EC2Instance {
	t.Helper()
	obj := &computev1alpha1.EC2Instance{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		t.Fatalf("getting %s/%s: %v", ns, name, err)
	}
	return obj
}

// instanceExists tells whether the object is still in the API.
func instanceExists(t *testing.T, ns, name string) bool {
	t.Helper()
	err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &computev1alpha1.EC2Instance{})
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// readyCondition returns the object's Ready condition, or nil.
func readyCondition(obj *computev1alpha1.EC2Instance) *metav1.Condition {
	return meta.FindStatusCondition(obj.Status.Conditions, computev1alpha1.ConditionReady)
}

// simInstance returns the emulator's record of an instance.
func simInstance(t *testing.T, id string) ec2sim.InstanceRecord {
	t.Helper()
	inst, ok := env.Sim.Instance(id)
	if !ok {
		t.Fatalf("the emulator has no instance %s", id)
	}
	return inst
}

// liveInstances returns the emulator's instances owned by objects in ns that are not
// shutting down or terminated. The emulator is shared, so the ownership tag the
// operator puts on every instance tells the tests' instances apart.
func liveInstances(ns string) []ec2sim.InstanceRecord {
	var out []ec2sim.InstanceRecord
	for _, i := range env.Sim.Instances() {
		if i.Tags[ec2.TagOwnerNamespace] != ns {
			continue
		}
		if i.State != ec2sim.StateShuttingDown && i.State != ec2sim.StateTerminated {
			out = append(out, i)
		}
	}
	return out
}

// describeInstances lists instances as "id (state)" for failure messages.
func describeInstances(insts []ec2sim.InstanceRecord) string {
	var parts []string
	for _, i := range insts {
		parts = append(parts, fmt.Sprintf("%s (%s)", i.ID, i.State))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
