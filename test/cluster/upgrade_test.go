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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

const (
	currentCSV = "ec2-operator.v0.1.0"
	nextCSV    = "ec2-operator.v0.2.0"
	// fleetSize is the live fleet the upgrade must leave alone.
	fleetSize = 20
	// upgradeNamespace holds the install that is upgraded and then scorecard-tested.
	upgradeNamespace = "ec2-operator-upgrade"
	// leaseName is the manager's leader-election lease (cmd/manager.go).
	leaseName = "ec2-operator.ec2-operator.dev"
)

// testUpgrade is what OLM's "Seamless Upgrades" capability level promises: v0.1.0
// installed from the release catalog runs a fleet of 20 Ready instances; a catalog
// whose channel head is v0.2.0 (this tree's bundle with the version bumped, as
// test/release renders the next release) is published by pointing the CatalogSource at
// it; OLM upgrades. During the upgrade no instance is launched or terminated, every
// object stays Ready or is back within a minute, the new pod leads and the old CSV is
// gone. The install stays, for the scorecard test: its namespace enforces "baseline"
// (scorecard's test pods set no security context), the other installs "restricted".
// It returns the namespace once the upgrade is through.
func testUpgrade(t *testing.T, c *Cluster) string {
	const ns = upgradeNamespace
	ctx := context.Background()
	c.namespace(t, ns, "baseline")
	c.subscribe(t, ns, []string{ns}, c.CatalogImage)
	names := c.createFleet(t, ns, fleetSize)
	c.waitFleetReady(t, ns, names, 5*time.Minute)
	runs, terms := c.EC2Calls(t, "RunInstances"), c.EC2Calls(t, "TerminateInstances")

	nextCatalog := c.buildNextRelease(t)
	watch := c.watchFleet(ns, names)
	source := &operatorsv1alpha1.CatalogSource{}
	if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "ec2-operator-catalog"}, source); err != nil {
		t.Fatal(err)
	}
	// A patch, not an update: OLM writes the CatalogSource's status all the time, and
	// an update of what was read a moment ago can meet a conflict.
	patch := client.MergeFrom(source.DeepCopy())
	source.Spec.Image = nextCatalog
	if err := c.Client.Patch(ctx, source, patch); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	c.waitCSV(t, ns, nextCSV, 6*time.Minute)
	c.WaitFor(t, 3*time.Minute, "the old CSV gone", func() (bool, error) {
		err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: currentCSV}, &operatorsv1alpha1.ClusterServiceVersion{})
		return apierrors.IsNotFound(err), err
	})
	c.checkOperatorPod(t, ns)
	pod := c.operatorPod(t, ns)
	c.WaitFor(t, 2*time.Minute, "the new pod leading", func() (bool, error) {
		lease := &coordinationv1.Lease{}
		if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: leaseName}, lease); err != nil {
			return false, err
		}
		holder := ""
		if lease.Spec.HolderIdentity != nil {
			holder = *lease.Spec.HolderIdentity
		}
		return strings.HasPrefix(holder, pod.Name+"_"), fmt.Errorf("lease held by %q, new pod %s", holder, pod.Name)
	})
	c.waitFleetReady(t, ns, names, time.Minute)
	worst := watch.stop()
	t.Logf("upgrade %s -> %s took %.0fs; longest time an object was not Ready: %s", currentCSV, nextCSV, time.Since(began).Seconds(), worst)
	if worst > time.Minute {
		t.Errorf("an object was not Ready for %s during the upgrade, want at most a minute", worst)
	}
	if d := c.EC2Calls(t, "RunInstances") - runs; d != 0 {
		t.Errorf("%d RunInstances during the upgrade, want 0", d)
	}
	if d := c.EC2Calls(t, "TerminateInstances") - terms; d != 0 {
		t.Errorf("%d TerminateInstances during the upgrade, want 0", d)
	}
	return ns
}

// createFleet creates n small EC2Instances.
func (c *Cluster) createFleet(t testing.TB, ns string, n int) []string {
	t.Helper()
	var names []string
	for i := range n {
		obj := &computev1alpha1.EC2Instance{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("fleet-%02d", i)},
			Spec: computev1alpha1.EC2InstanceSpec{
				ImageID:      "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64",
				InstanceType: "t3.micro",
			},
		}
		if err := c.Client.Create(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
		names = append(names, obj.Name)
	}
	return names
}

func (c *Cluster) notReady(ns string, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		obj := &computev1alpha1.EC2Instance{}
		if err := c.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: n}, obj); err != nil {
			return nil, err
		}
		if r := meta.FindStatusCondition(obj.Status.Conditions, "Ready"); r == nil || r.Status != metav1.ConditionTrue || r.ObservedGeneration != obj.Generation {
			out = append(out, n)
		}
	}
	return out, nil
}

func (c *Cluster) waitFleetReady(t testing.TB, ns string, names []string, timeout time.Duration) {
	t.Helper()
	c.WaitFor(t, timeout, fmt.Sprintf("%d EC2Instances Ready", len(names)), func() (bool, error) {
		out, err := c.notReady(ns, names)
		if err != nil {
			return false, err
		}
		return len(out) == 0, fmt.Errorf("not Ready: %v", out)
	})
}

// fleetWatch samples the fleet's Ready every two seconds and keeps, per object, the
// longest time it was not Ready.
type fleetWatch struct {
	done  chan struct{}
	wg    sync.WaitGroup
	worst time.Duration
}

func (c *Cluster) watchFleet(ns string, names []string) *fleetWatch {
	w := &fleetWatch{done: make(chan struct{})}
	since := map[string]time.Time{}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			now := time.Now()
			if out, err := c.notReady(ns, names); err == nil {
				down := map[string]bool{}
				for _, n := range out {
					down[n] = true
					if _, ok := since[n]; !ok {
						since[n] = now
					}
					w.worst = max(w.worst, now.Sub(since[n]))
				}
				for n := range since {
					if !down[n] {
						delete(since, n)
					}
				}
			}
			select {
			case <-w.done:
				return
			case <-time.After(2 * time.Second):
			}
		}
	}()
	return w
}

func (w *fleetWatch) stop() time.Duration {
	close(w.done)
	w.wg.Wait()
	return w.worst
}

// operatorPod is the one running operator pod of the namespace.
func (c *Cluster) operatorPod(t testing.TB, ns string) corev1.Pod {
	t.Helper()
	pods := &corev1.PodList{}
	if err := c.Client.List(context.Background(), pods, client.InNamespace(ns), managerPods); err != nil {
		t.Fatal(err)
	}
	var running []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			running = append(running, p)
		}
	}
	if len(running) != 1 {
		t.Fatalf("%d running operator pods, want 1", len(running))
	}
	return running[0]
}

// buildNextRelease builds the synthetic next release the way a release is made: the
// bundle with the CSV's name and version bumped (the same operator image), a channel
// entry that replaces this release, the catalog rendered with opm and packed into a
// catalog image; both images imported into the node. It returns the catalog image by
// digest.
func (c *Cluster) buildNextRelease(t testing.TB) string {
	t.Helper()
	work := t.TempDir()
	for _, p := range []string{"LICENSE", "hack/build-go-tool.sh"} {
		run(t, c.Root, "cp", "-r", "--parents", p, work)
	}
	// The bundle as make images staged it: it names the operator image built now.
	for _, p := range []string{"bundle", "bundle.Dockerfile"} {
		run(t, c.manifestsDir(), "cp", "-r", "--parents", p, work)
	}
	csvPath := filepath.Join(work, "bundle", "manifests", "ec2-operator.clusterserviceversion.yaml")
	csv, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	bumped := strings.Replace(string(csv), "\n  name: "+currentCSV+"\n", "\n  name: "+nextCSV+"\n", 1)
	bumped = strings.Replace(bumped, "\n  version: 0.1.0\n", "\n  version: 0.2.0\n", 1)
	if bumped == string(csv) {
		t.Fatal("could not bump the CSV's name and version")
	}
	if err := os.WriteFile(csvPath, []byte(bumped), 0o644); err != nil {
		t.Fatal(err)
	}
	tool := filepath.Join(c.Root, "bin", "images-tool")
	build := func(target string) {
		run(t, work, tool, "build", "--root", work, "--out", filepath.Join(work, "images"), "--bin", filepath.Join(c.Root, "bin"),
			"--version", "0.2.0", "--revision", "synthetic-next-release", "--platforms", "linux/amd64", target)
	}
	build("bundle")
	nextBundle, err := layoutByDigest(filepath.Join(work, "images", "bundle"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join(c.manifestsDir(), "config", "catalog", "ec2-operator.template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	entry := "  - name: " + currentCSV + "\n"
	if !bytes.Contains(tmpl, []byte(entry)) {
		t.Fatalf("the catalog template's channel has no entry %q", entry)
	}
	tmpl = bytes.Replace(tmpl, []byte(entry), []byte(entry+"  - name: "+nextCSV+"\n    replaces: "+currentCSV+"\n    skipRange: '>=0.1.0 <0.2.0'\n"), 1)
	tmpl = append(tmpl, []byte("- schema: olm.bundle\n  image: "+nextBundle+"\n")...)
	template := filepath.Join(work, "template.yaml")
	if err := os.WriteFile(template, tmpl, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, c.Root, tool, "render-catalog", "--opm-bin", filepath.Join(c.Root, "bin", "opm"), "--template", template,
		"--catalog", filepath.Join(work, "catalog", "ec2-operator", "catalog.yaml"),
		filepath.Join(c.imagesDir(), "bundle"), filepath.Join(work, "images", "bundle"))
	build("catalog")
	if err := c.clusterTool("import", filepath.Join(work, "images", "bundle"), filepath.Join(work, "images", "catalog")); err != nil {
		t.Fatal(err)
	}
	ref, err := layoutByDigest(filepath.Join(work, "images", "catalog"))
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func run(t testing.TB, dir, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
}
