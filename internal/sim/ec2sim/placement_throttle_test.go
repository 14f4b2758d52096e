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

package ec2sim

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// The placement and Capacity Reservation actions are throttled by category
// ("Request throttling for the Amazon EC2 API"): the Describe* actions draw
// from the non-mutating bucket (neither is on the guide's list of actions
// with a smaller unfiltered bucket) and the Modify* actions from the
// mutating one. Every call, refused or not, is counted in the call log.
func TestPlacementActionsAreThrottledByCategoryAndLogged(t *testing.T) {
	limits := ec2limits.Documented()
	for action, want := range map[string]ec2limits.Bucket{
		"DescribeCapacityReservations": ec2limits.NonMutating, "DescribePlacementGroups": ec2limits.NonMutating,
		"ModifyInstanceCapacityReservationAttributes": ec2limits.Mutating, "ModifyInstancePlacement": ec2limits.Mutating,
	} {
		if got := limits.Request(ec2limits.RequestKey(action, false)); got != want {
			t.Errorf("%s draws from %v, want %v", action, got, want)
		}
	}

	clock := newFakeClock()
	tight, err := limits.Parse("DescribePlacementGroups=1/1,ModifyInstancePlacement=1/1")
	if err != nil {
		t.Fatal(err)
	}
	sim := New(Config{Now: clock.Now, Throttle: &tight})
	sim.AddPlacementGroup("hpc", StrategyCluster, 0)
	c := noRetry(newClient(t, sim))
	if _, err := c.DescribePlacementGroups(simtest.Ctx(t), &ec2.DescribePlacementGroupsInput{}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DescribePlacementGroups(simtest.Ctx(t), &ec2.DescribePlacementGroupsInput{})
	simtest.WantCode(t, err, "RequestLimitExceeded")
	if _, err := c.DescribeCapacityReservations(simtest.Ctx(t), &ec2.DescribeCapacityReservationsInput{}); err != nil {
		t.Fatalf("DescribeCapacityReservations has its own bucket: %v", err)
	}
	modify := &ec2.ModifyInstancePlacementInput{InstanceId: aws.String("i-0ffffffffffffffff"), GroupName: aws.String("hpc")}
	_, err = c.ModifyInstancePlacement(simtest.Ctx(t), modify)
	simtest.WantCode(t, err, "InvalidInstanceID.NotFound") // admitted, then refused by the handler
	_, err = c.ModifyInstancePlacement(simtest.Ctx(t), modify)
	simtest.WantCode(t, err, "RequestLimitExceeded")
	clock.Advance(time.Second)
	if _, err := c.DescribePlacementGroups(simtest.Ctx(t), &ec2.DescribePlacementGroupsInput{}); err != nil {
		t.Fatalf("one token refills in a second: %v", err)
	}
	if got := sim.ThrottledCalls(); got["DescribePlacementGroups"] != 1 || got["ModifyInstancePlacement"] != 1 {
		t.Errorf("ThrottledCalls = %v", got)
	}
	if sim.Calls("DescribePlacementGroups") != 3 || sim.Calls("ModifyInstancePlacement") != 2 || sim.Calls("DescribeCapacityReservations") != 1 {
		t.Errorf("call counts = %v", sim.CallCounts())
	}
	var logged int
	for _, r := range sim.Requests() {
		if r.Operation == "ModifyInstancePlacement" && r.ErrorCode == "RequestLimitExceeded" {
			logged++
		}
	}
	if logged != 1 {
		t.Errorf("the refused ModifyInstancePlacement is logged %d times, want 1", logged)
	}
}
