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

package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/deletion"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
	"github.com/ec2-operator/ec2-operator/internal/uninstall"
)

// TestDeletingTheSetsCRDReleasesTheSetsInstances: deleting the ec2instancesets CRD
// (alone, or with the others when OLM v1 uninstalls the operator) deletes every set,
// and the garbage collector then deletes their EC2Instances. Like the deletion of the
// ec2instances CRD, that is no wish to terminate the fleet: each instance must be
// released, untouched in EC2, with an event naming the CRD. envtest runs no garbage
// collector, so the test deletes the EC2Instances as it would, once the sets are
// gone. It has a kube-apiserver of its own, as the uninstall test has, since deleting
// a CRD deletes the objects of every test that shares one.
func TestDeletingTheSetsCRDReleasesTheSetsInstances(t *testing.T) {
	testenv.SkipInUnitTier(t)
	own, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = own.Stop() })
	h := newHarness(t, harnessOptions{accounts: true, cluster: own.Config})
	h.timeout = 2 * time.Minute // a CRD's deletion polls its objects every 5 s
	h.newSet("web", 2)
	h.waitSetSettled("web", 2)
	members := h.setMembers("web")
	changesBefore := h.worldChanges()

	h.deleteCRD(uninstall.EC2InstanceSetsCRD)
	h.waitCRDGone(uninstall.EC2InstanceSetsCRD)
	// The garbage collector's part: the owner is gone, so its dependents are deleted.
	if err := h.k8s.DeleteAllOf(context.Background(), &computev1alpha1.EC2Instance{}, client.InNamespace(h.ns),
		client.MatchingLabels{computev1alpha1.InstanceSetLabel: "web"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		note := h.waitEventOn(m.UID, deletion.ReasonReleasedOnUninstall)
		if !strings.Contains(note, uninstall.EC2InstanceSetsCRD+" is being deleted") || !strings.Contains(note, "not terminated") {
			t.Errorf("%s: the event says %q", m.Name, note)
		}
		h.waitGone(m.Name)
		h.expectUntouched(m.Name, &m)
	}
	if after := h.worldChanges(); after != changesBefore {
		t.Errorf("%d calls that change something in EC2 after the sets' CRD was deleted, want none", after-changesBefore)
	}
}
