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

package bench

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// guardedAccount creates an AWSAccount of the operator's own credentials, named after
// the scenario's namespace and allowing only it, with guardrails, and waits until the
// running manager has verified it, so that no object waits for it.
func guardedAccount(t *testing.T, k8s client.Client, ns string, g *computev1alpha1.Guardrails) {
	t.Helper()
	acct := &computev1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: ns},
		Spec: computev1alpha1.AWSAccountSpec{AllowedNamespaces: computev1alpha1.AllowedNamespaces{Names: []string{ns}}, Guardrails: g}}
	if err := k8s.Create(context.Background(), acct); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cur := &computev1alpha1.AWSAccount{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Name: ns}, cur); err == nil {
			cur.Finalizers = nil
			_ = k8s.Update(context.Background(), cur)
			_ = k8s.Delete(context.Background(), cur)
		}
	})
	waitFor(t, time.Minute, func() bool {
		cur := &computev1alpha1.AWSAccount{}
		return k8s.Get(context.Background(), client.ObjectKey{Name: ns}, cur) == nil &&
			meta.IsStatusConditionTrue(cur.Status.Conditions, computev1alpha1.ConditionReady)
	})
}

// platformGuardrails are a platform team's guardrails that the scenarios' objects
// meet: the region, the default VPC, its subnets and group, t3 types and the
// emulator's images, shared tenancy and no open Capacity Reservations.
func platformGuardrails() *computev1alpha1.Guardrails {
	return &computev1alpha1.Guardrails{
		Regions: []string{ec2sim.DefaultRegion}, VPCIDs: []string{ec2sim.DefaultVPCID}, SubnetIDs: ec2sim.DefaultSubnetIDs,
		SecurityGroupIDs: []string{ec2sim.DefaultSecurityGroupID}, InstanceTypes: []string{"t3.*"}, ImageOwners: []string{"*"},
		Tenancies: []string{"default"},
	}
}
