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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestTheShippedSampleGetsItsDataVolumeAndElasticIPAndLeavesNothingBehind applies
// config/samples (a data volume and an Elastic IP the operator allocates) with kubectl
// to the manager binary, and checks what a user would: the volume attached and tagged,
// the address associated and shown, the wide printer columns, and after kubectl
// delete, neither the address nor the volume left in the account.
func TestTheShippedSampleGetsItsDataVolumeAndElasticIPAndLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "sample")
	startManager(t, "sample", ns)
	sample, err := os.ReadFile(filepath.Join(projectRoot, "config", "samples", "compute_v1alpha1_ec2instance.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	kubectl(t, string(sample), "apply", "-n", ns, "-f", "-")
	obj := waitReady(t, ns, "web-1")
	st := obj.Status

	if len(st.Volumes) != 1 || st.Volumes[0].DeviceName != "/dev/sdf" || st.Volumes[0].VolumeID == "" ||
		st.Volumes[0].AttachmentState != "attached" || st.Volumes[0].SizeGiB != 50 {
		t.Fatalf("status.volumes = %+v", st.Volumes)
	}
	vol, ok := env.Sim.Volume(st.Volumes[0].VolumeID)
	if !ok || vol.Tags[ec2.TagOwnerUID] != string(obj.UID) || !vol.Encrypted || vol.AZ != st.AvailabilityZone {
		t.Errorf("data volume %+v", vol)
	}
	eip := st.ElasticIP
	if eip == nil || !eip.AllocatedByOperator || eip.AssociationID == "" || st.PublicIP != eip.PublicIP {
		t.Fatalf("status.elasticIp = %+v, publicIp %s", eip, st.PublicIP)
	}
	addr, ok := env.Sim.Address(eip.AllocationID)
	if !ok || addr.InstanceID != st.InstanceID || addr.Tags[ec2.TagOwnerNamespace] != ns {
		t.Errorf("address %+v", addr)
	}
	row := kubectl(t, "", "get", "ec2", "web-1", "-n", ns, "-o", "wide")
	for _, want := range []string{st.InstanceID, eip.PublicIP, st.VPCID, "True"} {
		if !strings.Contains(row, want) {
			t.Errorf("kubectl get ec2 -o wide does not show %q:\n%s", want, row)
		}
	}
	described := kubectl(t, "", "describe", "ec2", "web-1", "-n", ns)
	if !strings.Contains(described, "ElasticIPAssociated") {
		t.Errorf("kubectl describe does not show the ElasticIPAssociated condition:\n%s", described)
	}

	kubectl(t, "", "delete", "ec2", "web-1", "-n", ns, kubectlWait)
	if _, ok := env.Sim.Address(eip.AllocationID); ok {
		t.Errorf("the operator's Elastic IP %s is still allocated after the object was deleted", eip.AllocationID)
	}
	eventually(t, waitTimeout, func() string {
		if s := simInstance(t, st.InstanceID).State; s != ec2sim.StateTerminated {
			return "instance is " + s
		}
		if _, ok := env.Sim.Volume(st.Volumes[0].VolumeID); ok {
			return fmt.Sprintf("data volume %s outlived its instance", st.Volumes[0].VolumeID)
		}
		return ""
	})
}
