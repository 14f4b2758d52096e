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
	"fmt"
	"strings"
	"testing"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestKubectlDrivesAnInstanceFromCreateThroughUpdatesToDeletion walks the life of one
// EC2Instance through kubectl only: create, Ready with IPs, change of type, tags and
// power state, and delete.
func TestKubectlDrivesAnInstanceFromCreateThroughUpdatesToDeletion(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "lifecycle")
	startManager(t, "lifecycle", ns)

	createInstance(t, ns, "web-1")
	obj := waitReady(t, ns, "web-1")
	id, ip := obj.Status.InstanceID, obj.Status.PrivateIP
	if id == "" || ip == "" || obj.Status.PublicIP == "" {
		t.Fatalf("Ready without addresses: id %q, private IP %q, public IP %q", id, ip, obj.Status.PublicIP)
	}
	inst := simInstance(t, id)
	if inst.State != ec2sim.StateRunning || inst.InstanceType != "t3.micro" || inst.ImageID != ec2sim.DefaultImageID {
		t.Fatalf("emulator instance: state %s, type %s, image %s", inst.State, inst.InstanceType, inst.ImageID)
	}
	if inst.PrivateIP != ip {
		t.Errorf("status private IP %s, emulator %s", ip, inst.PrivateIP)
	}
	if inst.Tags["team"] != "platform" {
		t.Errorf("tags at launch: %v", inst.Tags)
	}
	// The printer columns are what a user sees first.
	row := kubectl(t, "", "get", "ec2", "web-1", "-n", ns)
	for _, want := range []string{id, "t3.micro", "running", ip, "True"} {
		if !strings.Contains(row, want) {
			t.Errorf("kubectl get ec2 does not show %q:\n%s", want, row)
		}
	}

	t.Log("changing type and tags")
	// A merge patch with null deletes the key: the operator must remove the tag it set.
	kubectl(t, "", "patch", "ec2", "web-1", "-n", ns, "--type", "merge",
		"-p", `{"spec":{"instanceType":"t3.small","tags":{"team":null,"env":"e2e"}}}`)
	eventually(t, waitTimeout, func() string {
		inst := simInstance(t, id)
		if inst.InstanceType != "t3.small" || inst.State != ec2sim.StateRunning {
			return fmt.Sprintf("emulator instance is %s %s, want running t3.small", inst.State, inst.InstanceType)
		}
		if _, stale := inst.Tags["team"]; stale || inst.Tags["env"] != "e2e" {
			return fmt.Sprintf("emulator tags %v, want env=e2e and no team", inst.Tags)
		}
		return ""
	})
	obj = waitReady(t, ns, "web-1")
	if obj.Status.InstanceID != id || obj.Status.InstanceType != "t3.small" {
		t.Fatalf("after the type change: status id %s type %s, want %s t3.small", obj.Status.InstanceID, obj.Status.InstanceType, id)
	}

	t.Log("stopping through desiredState")
	kubectl(t, "", "patch", "ec2", "web-1", "-n", ns, "--type", "merge", "-p", `{"spec":{"desiredState":"stopped"}}`)
	eventually(t, waitTimeout, func() string {
		obj := getInstance(t, ns, "web-1")
		c := readyCondition(obj)
		if s := simInstance(t, id).State; s != ec2sim.StateStopped {
			return "emulator instance is " + s
		}
		if c == nil || c.Status != "True" || c.Reason != computev1alpha1.ReasonStopped || c.ObservedGeneration != obj.Generation {
			return fmt.Sprintf("Ready condition %+v, want True/Stopped for generation %d", c, obj.Generation)
		}
		return ""
	})

	t.Log("deleting")
	// kubectl delete waits until the finalizer is gone, that is until the operator let go.
	kubectl(t, "", "delete", "ec2", "web-1", "-n", ns, kubectlWait)
	if instanceExists(t, ns, "web-1") {
		t.Fatal("the object still exists after kubectl delete returned")
	}
	if s := simInstance(t, id).State; s != ec2sim.StateShuttingDown && s != ec2sim.StateTerminated {
		t.Fatalf("instance is %s after the object was deleted", s)
	}
	eventually(t, waitTimeout, func() string {
		if s := simInstance(t, id).State; s != ec2sim.StateTerminated {
			return "instance is " + s
		}
		return ""
	})
	if live := liveInstances(ns); len(live) != 0 {
		t.Errorf("live instances left in the namespace: %s", describeInstances(live))
	}
}
