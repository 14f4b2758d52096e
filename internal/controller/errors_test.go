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
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestEC2RejectionsAreReportedAsReadyReasonsWithTheAWSMessage(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name       string
		mutate     func(*computev1alpha1.EC2Instance)
		fault      *ec2sim.Fault
		wantReason string
		wantCode   string
	}{
		{name: "unknown image", mutate: func(o *computev1alpha1.EC2Instance) { o.Spec.ImageID = "ami-0000000000000dead" },
			wantReason: computev1alpha1.ReasonImageNotFound, wantCode: "InvalidAMIID.NotFound"},
		{name: "unknown SSM image parameter", mutate: func(o *computev1alpha1.EC2Instance) { o.Spec.ImageID = "resolve:ssm:/no/such/parameter" },
			wantReason: computev1alpha1.ReasonInvalidSpec, wantCode: "InvalidParameterValue"},
		{name: "unknown subnet", mutate: func(o *computev1alpha1.EC2Instance) { o.Spec.SubnetID = "subnet-0000000000000dead" },
			wantReason: computev1alpha1.ReasonSubnetNotFound, wantCode: "InvalidSubnetID.NotFound"},
		{name: "unknown security group", mutate: func(o *computev1alpha1.EC2Instance) { o.Spec.SecurityGroupIDs = []string{"sg-0000000000000dead"} },
			wantReason: computev1alpha1.ReasonSecurityGroupMissing, wantCode: "InvalidGroup.NotFound"},
		// Checked before the launch against DescribeInstanceTypes, which names the type.
		{name: "unknown instance type", mutate: func(o *computev1alpha1.EC2Instance) { o.Spec.InstanceType = "zz9.mega" },
			wantReason: computev1alpha1.ReasonInvalidSpec, wantCode: "InvalidInstanceType"},
		{name: "unknown key pair", mutate: func(o *computev1alpha1.EC2Instance) { o.Spec.KeyName = "nobody" },
			wantReason: computev1alpha1.ReasonInvalidSpec, wantCode: "InvalidKeyPair.NotFound"},
		{name: "adopting an unknown instance", mutate: func(o *computev1alpha1.EC2Instance) { o.Spec.InstanceID = "i-0000000000000dead" },
			wantReason: computev1alpha1.ReasonInstanceNotFound, wantCode: "NotFound"},
		{name: "no capacity", fault: &ec2sim.Fault{Operation: "RunInstances", Code: "InsufficientInstanceCapacity", HTTPStatus: 500,
			Message: "We currently do not have sufficient t3.micro capacity in the Availability Zone you requested (us-east-1a)."},
			wantReason: computev1alpha1.ReasonInsufficientCapacity, wantCode: "InsufficientInstanceCapacity"},
		{name: "bad credentials", fault: &ec2sim.Fault{Code: "AuthFailure", HTTPStatus: 401,
			Message: "AWS was not able to validate the provided access credentials"},
			wantReason: computev1alpha1.ReasonAuthFailure, wantCode: "AuthFailure"},
		{name: "not allowed", fault: &ec2sim.Fault{Operation: "RunInstances", Code: "UnauthorizedOperation", HTTPStatus: 403,
			Message: "You are not authorized to perform this operation."},
			wantReason: computev1alpha1.ReasonAuthFailure, wantCode: "UnauthorizedOperation"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, harnessOptions{})
			if tc.fault != nil {
				defer h.sim.InjectFault(*tc.fault)()
			}
			obj := h.instance("bad")
			if tc.mutate != nil {
				tc.mutate(obj)
			}
			h.create(obj)
			got := h.waitCondition("bad", computev1alpha1.ConditionReady, metav1.ConditionFalse, tc.wantReason)
			if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, tc.wantCode) {
				t.Errorf("message %q does not carry AWS's code %s", c.Message, tc.wantCode)
			}
			note := h.waitEvent("bad", tc.wantReason)
			if !strings.Contains(note, tc.wantCode) {
				t.Errorf("event %q does not carry AWS's code %s", note, tc.wantCode)
			}
			if strings.Contains(note, "not-a-secret") || strings.Contains(note, "AKIDEXAMPLE") {
				t.Errorf("event leaks credentials: %q", note)
			}
			if n := len(h.liveInstances()); n != 0 {
				t.Errorf("a rejected launch left %d instances", n)
			}
		})
	}
}

func TestNonexistentImageBacksOffInsteadOfHotLooping(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("no-ami")
	obj.Spec.ImageID = "ami-0000000000000dead"
	h.create(obj)
	h.waitCondition("no-ami", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonImageNotFound)

	time.Sleep(30 * time.Second)
	// Each attempt asks EC2 about the image: DescribeImages before the launch (the
	// architecture check), so RunInstances is never sent for it.
	reconciles, runs := h.reconciles.Load(), h.sim.Calls("RunInstances")+h.sim.Calls("DescribeImages")
	t.Logf("in about 30s: %d reconciles, %d attempts, %d EC2 calls in all", reconciles, runs, totalCalls(h.sim))
	// Backoff doubles from 100ms: about nine attempts fit in 30 seconds. A hot loop
	// would make hundreds.
	if reconciles > 15 || runs > 15 {
		t.Errorf("hot loop: %d reconciles and %d attempts in 30s", reconciles, runs)
	}
	if runs < 3 {
		t.Errorf("the operator gave up: only %d attempts in 30s", runs)
	}
}

func TestSteadyInstanceCostsNoWritesAndNoMutatingCallsPerResync(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod = 300 * time.Millisecond
		r.AttributeResyncPeriod = time.Hour
	}})
	h.create(h.instance("steady"))
	h.waitReady("steady")
	h.waitCondition("steady", computev1alpha1.ConditionSynced, metav1.ConditionTrue, computev1alpha1.ReasonInSync)
	time.Sleep(time.Second) // let the last writes of the launch land

	h.sim.ResetCalls()
	writes, reconciles := h.apiWrites.Load(), h.reconciles.Load()
	time.Sleep(4 * time.Second)
	writes, reconciles = h.apiWrites.Load()-writes, h.reconciles.Load()-reconciles

	t.Logf("at rest for 4s: %d reconciles, %d API-server writes, EC2 calls %v", reconciles, writes, h.sim.CallCounts())
	if reconciles < 5 {
		t.Fatalf("only %d resyncs happened; the test proves nothing", reconciles)
	}
	if writes != 0 {
		t.Errorf("%d writes to the EC2Instance while nothing changed", writes)
	}
	if n := h.mutatingCalls(); n != 0 {
		t.Errorf("%d mutating EC2 calls while nothing changed: %v", n, h.sim.CallCounts())
	}
	if n := h.sim.Calls("DescribeInstanceAttribute"); n != 0 {
		t.Errorf("attributes were re-read %d times within their resync period", n)
	}
}

func totalCalls(sim *ec2sim.Sim) int {
	n := 0
	for _, c := range sim.CallCounts() {
		n += c
	}
	return n
}
