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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// Capacity Reservations used by these tests; all reserve us-east-1a, the
// zone of DefaultSubnetIDs[0] that basicRun launches into.
const (
	openCR     = "cr-0c100000000000001"
	targetedCR = "cr-0c100000000000002"
	otherCR    = "cr-0c100000000000003"
	crGroupARN = "arn:aws:resource-groups:us-east-1:123456789012:group/reserved"
)

// runWithCR is basicRun with a CapacityReservationSpecification.
func runWithCR(spec *types.CapacityReservationSpecification) *ec2.RunInstancesInput {
	in := basicRun()
	in.CapacityReservationSpecification = spec
	return in
}

// targetCR targets one reservation, with no preference.
func targetCR(id string) *types.CapacityReservationSpecification {
	return &types.CapacityReservationSpecification{CapacityReservationTarget: &types.CapacityReservationTarget{CapacityReservationId: aws.String(id)}}
}

// describeCR returns one reservation through DescribeCapacityReservations.
func describeCR(t *testing.T, c *ec2.Client, id string) types.CapacityReservation {
	t.Helper()
	out, err := c.DescribeCapacityReservations(simtest.Ctx(t), &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{id}})
	if err != nil || len(out.CapacityReservations) != 1 {
		t.Fatalf("DescribeCapacityReservations(%s): %v %+v", id, err, out)
	}
	return out.CapacityReservations[0]
}

// stopForPlacement stops an instance and waits (one request, with zero durations)
// until it is stopped.
func stopForPlacement(t *testing.T, c *ec2.Client, id string) {
	t.Helper()
	if _, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("StopInstances(%s): %v", id, err)
	}
	if got := describeOne(t, c, id).State.Name; got != types.InstanceStateNameStopped {
		t.Fatalf("%s is %s after stopping, want stopped", id, got)
	}
}

// "open - The instance can run in any open Capacity Reservation that has
// matching attributes (instance type, platform, Availability Zone, and
// tenancy)" and open is the default: a plain launch uses a matching open
// reservation, DescribeInstances names it, DescribeCapacityReservations
// counts it, and stopping the instance gives the capacity back.
func TestOpenLaunchConsumesAMatchingOpenReservation(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 300})
	sim.AddCapacityReservation(openCR, "t3.micro", "us-east-1a", 2, "open", map[string]string{"Team": "web"})
	id := runOne(t, c, basicRun())
	got := describeOne(t, c, id)
	if aws.ToString(got.CapacityReservationId) != openCR {
		t.Fatalf("capacityReservationId = %q, want %s", aws.ToString(got.CapacityReservationId), openCR)
	}
	if spec := got.CapacityReservationSpecification; spec == nil || spec.CapacityReservationPreference != types.CapacityReservationPreferenceOpen || spec.CapacityReservationTarget != nil {
		t.Fatalf("capacityReservationSpecification = %+v, want preference open and no target", spec)
	}
	cr := describeCR(t, c, openCR)
	if aws.ToInt32(cr.AvailableInstanceCount) != 1 || aws.ToInt32(cr.TotalInstanceCount) != 2 || cr.InstanceMatchCriteria != types.InstanceMatchCriteriaOpen ||
		aws.ToString(cr.InstanceType) != "t3.micro" || aws.ToString(cr.AvailabilityZone) != "us-east-1a" || cr.State != types.CapacityReservationStateActive {
		t.Fatalf("reservation = %+v, want 1 of 2 available", cr)
	}
	if rec, ok := sim.CapacityReservation(openCR); !ok || len(rec.InstanceIDs) != 1 || rec.InstanceIDs[0] != id || rec.Tags["Team"] != "web" {
		t.Fatalf("CapacityReservation snapshot = %+v", rec)
	}
	if rec, _ := sim.Instance(id); rec.CapacityReservation.ReservationID != openCR || rec.CapacityReservation.Preference != "open" {
		t.Fatalf("instance snapshot capacity reservation = %+v", rec.CapacityReservation)
	}
	stopForPlacement(t, c, id)
	if got := describeOne(t, c, id); got.CapacityReservationId != nil {
		t.Errorf("a stopped instance still reports reservation %s", aws.ToString(got.CapacityReservationId))
	}
	if n := aws.ToInt32(describeCR(t, c, openCR).AvailableInstanceCount); n != 2 {
		t.Errorf("availableInstanceCount = %d after the instance stopped, want 2", n)
	}
}

// A targeted reservation "only accepts instances that have matching
// attributes ... and explicitly target the Capacity Reservation"; preference
// none never uses one.
func TestTargetedReservationsAreUsedOnlyWhenTargeted(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 301})
	sim.AddCapacityReservation(targetedCR, "t3.micro", "us-east-1a", 1, "targeted", nil)
	sim.AddCapacityReservation(openCR, "t3.micro", "us-east-1a", 1, "open", nil)
	plain := runOne(t, c, runWithCR(&types.CapacityReservationSpecification{CapacityReservationPreference: types.CapacityReservationPreferenceNone}))
	if got := describeOne(t, c, plain); got.CapacityReservationId != nil || got.CapacityReservationSpecification.CapacityReservationPreference != types.CapacityReservationPreferenceNone {
		t.Fatalf("preference none: %+v %+v", got.CapacityReservationId, got.CapacityReservationSpecification)
	}
	open := runOne(t, c, basicRun())
	if got := aws.ToString(describeOne(t, c, open).CapacityReservationId); got != openCR {
		t.Fatalf("an untargeted launch used %q, want the open reservation %s", got, openCR)
	}
	targeted := runOne(t, c, runWithCR(targetCR(targetedCR)))
	got := describeOne(t, c, targeted)
	if aws.ToString(got.CapacityReservationId) != targetedCR {
		t.Fatalf("a targeted launch used %q, want %s", aws.ToString(got.CapacityReservationId), targetedCR)
	}
	spec := got.CapacityReservationSpecification
	if spec.CapacityReservationTarget == nil || aws.ToString(spec.CapacityReservationTarget.CapacityReservationId) != targetedCR {
		t.Fatalf("capacityReservationSpecification = %+v, want the target", spec)
	}
	// Both are now full: an open launch runs On-Demand, a targeted one fails.
	if id := runOne(t, c, basicRun()); describeOne(t, c, id).CapacityReservationId != nil {
		t.Errorf("an open launch with no free reservation should run On-Demand")
	}
	_, err := c.RunInstances(simtest.Ctx(t), runWithCR(targetCR(targetedCR)))
	simtest.WantCode(t, err, "ReservationCapacityExceeded")
}

// The documented errors for targeting: an unknown reservation is
// InvalidCapacityReservationId.NotFound, a malformed id .Malformed, a full one
// ReservationCapacityExceeded, and a target may only accompany the
// capacity-reservations-only preference (CapacityReservationSpecification).
func TestTargetingErrors(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 302})
	sim.AddCapacityReservation(targetedCR, "t3.micro", "us-east-1a", 1, "targeted", nil)
	sim.AddCapacityReservation(otherCR, "m5.large", "us-east-1b", 1, "targeted", nil)
	_, err := c.RunInstances(simtest.Ctx(t), runWithCR(targetCR("cr-0ffffffffffffffff")))
	simtest.WantCode(t, err, "InvalidCapacityReservationId.NotFound")
	_, err = c.RunInstances(simtest.Ctx(t), runWithCR(targetCR("cr-nope")))
	simtest.WantCode(t, err, "InvalidCapacityReservationId.Malformed")
	_, err = c.RunInstances(simtest.Ctx(t), runWithCR(targetCR(otherCR)))
	simtest.WantCode(t, err, "InvalidParameterValue") // wrong type and zone
	two := runWithCR(targetCR(targetedCR))
	two.MinCount, two.MaxCount = aws.Int32(2), aws.Int32(2)
	_, err = c.RunInstances(simtest.Ctx(t), two)
	simtest.WantCode(t, err, "ReservationCapacityExceeded")
	_, err = c.RunInstances(simtest.Ctx(t), runWithCR(&types.CapacityReservationSpecification{
		CapacityReservationPreference: types.CapacityReservationPreferenceOpen,
		CapacityReservationTarget:     &types.CapacityReservationTarget{CapacityReservationId: aws.String(targetedCR)},
	}))
	simtest.WantCode(t, err, "InvalidParameterCombination")
	_, err = c.RunInstances(simtest.Ctx(t), runWithCR(&types.CapacityReservationSpecification{CapacityReservationPreference: "sometimes"}))
	simtest.WantCode(t, err, "InvalidParameterValue")
	if len(sim.Instances()) != 0 {
		t.Fatalf("failed launches left instances behind: %+v", sim.Instances())
	}
}

// "capacity-reservations-only - The instance will only run in a Capacity
// Reservation or Capacity Reservation group. If capacity isn't available,
// the instance will fail to launch." A group target fills the group's
// matching reservations; without that preference the rest runs On-Demand.
func TestCapacityReservationsOnlyAndGroups(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 303})
	only := &types.CapacityReservationSpecification{CapacityReservationPreference: types.CapacityReservationPreferenceCapacityReservationsOnly}
	_, err := c.RunInstances(simtest.Ctx(t), runWithCR(only))
	simtest.WantCode(t, err, "ReservationCapacityExceeded")

	sim.AddCapacityReservation(targetedCR, "t3.micro", "us-east-1a", 1, "targeted", nil)
	sim.AddCapacityReservation(otherCR, "t3.micro", "us-east-1a", 1, "targeted", nil)
	sim.AddCapacityReservationGroup(crGroupARN, targetedCR, otherCR)
	group := &types.CapacityReservationSpecification{
		CapacityReservationPreference: types.CapacityReservationPreferenceCapacityReservationsOnly,
		CapacityReservationTarget:     &types.CapacityReservationTarget{CapacityReservationResourceGroupArn: aws.String(crGroupARN)},
	}
	three := runWithCR(group)
	three.MinCount, three.MaxCount = aws.Int32(3), aws.Int32(3)
	_, err = c.RunInstances(simtest.Ctx(t), three)
	simtest.WantCode(t, err, "ReservationCapacityExceeded")

	two := runWithCR(group)
	two.MinCount, two.MaxCount = aws.Int32(2), aws.Int32(2)
	out, err := c.RunInstances(simtest.Ctx(t), two)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, in := range out.Instances {
		got := describeOne(t, c, aws.ToString(in.InstanceId))
		used[aws.ToString(got.CapacityReservationId)] = true
		if tgt := got.CapacityReservationSpecification.CapacityReservationTarget; tgt == nil || aws.ToString(tgt.CapacityReservationResourceGroupArn) != crGroupARN {
			t.Errorf("target = %+v, want the group", tgt)
		}
	}
	if !used[targetedCR] || !used[otherCR] {
		t.Fatalf("the two instances used %v, want both reservations of the group", used)
	}
	// Targeting the full group without capacity-reservations-only runs On-Demand.
	id := runOne(t, c, runWithCR(&types.CapacityReservationSpecification{
		CapacityReservationTarget: &types.CapacityReservationTarget{CapacityReservationResourceGroupArn: aws.String(crGroupARN)},
	}))
	if got := describeOne(t, c, id); got.CapacityReservationId != nil {
		t.Errorf("the full group's launch used %s, want On-Demand", aws.ToString(got.CapacityReservationId))
	}
}

// ModifyInstanceCapacityReservationAttributes "modifies the Capacity
// Reservation settings for a stopped instance"; the new targeting applies
// when the instance starts, and StartInstances fails while the targeted
// reservation is full.
func TestModifyInstanceCapacityReservationAttributes(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 304})
	sim.AddCapacityReservation(targetedCR, "t3.micro", "us-east-1a", 1, "targeted", nil)
	id := runOne(t, c, basicRun())
	modify := &ec2.ModifyInstanceCapacityReservationAttributesInput{InstanceId: aws.String(id), CapacityReservationSpecification: targetCR(targetedCR)}
	_, err := c.ModifyInstanceCapacityReservationAttributes(simtest.Ctx(t), modify)
	simtest.WantCode(t, err, "IncorrectInstanceState")
	stopForPlacement(t, c, id)
	_, err = c.ModifyInstanceCapacityReservationAttributes(simtest.Ctx(t), &ec2.ModifyInstanceCapacityReservationAttributesInput{
		InstanceId: aws.String(id), CapacityReservationSpecification: targetCR("cr-0ffffffffffffffff"),
	})
	simtest.WantCode(t, err, "InvalidCapacityReservationId.NotFound")
	out, err := c.ModifyInstanceCapacityReservationAttributes(simtest.Ctx(t), modify)
	if err != nil || !aws.ToBool(out.Return) {
		t.Fatalf("ModifyInstanceCapacityReservationAttributes: %v %+v", err, out)
	}
	// Another instance takes the reservation's only slot, so the start fails.
	blocker := runOne(t, c, runWithCR(targetCR(targetedCR)))
	_, err = c.StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{id}})
	simtest.WantCode(t, err, "ReservationCapacityExceeded")
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{blocker}}); err != nil {
		t.Fatal(err)
	}
	describeOne(t, c, blocker) // completes the termination
	if _, err := c.StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("StartInstances after the reservation freed up: %v", err)
	}
	got := describeOne(t, c, id)
	if aws.ToString(got.CapacityReservationId) != targetedCR || aws.ToString(got.CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId) != targetedCR {
		t.Fatalf("after the start: id %q spec %+v", aws.ToString(got.CapacityReservationId), got.CapacityReservationSpecification)
	}
}

// DescribeCapacityReservations supports the documented filters (here
// instance-match-criteria and tag:KEY) and MaxResults/NextToken paging, and
// rejects unknown filters.
func TestDescribeCapacityReservationsFiltersAndPages(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 305})
	sim.AddCapacityReservation(openCR, "t3.micro", "us-east-1a", 1, "open", map[string]string{"Team": "web"})
	sim.AddCapacityReservation(targetedCR, "t3.micro", "us-east-1a", 1, "targeted", map[string]string{"Team": "db"})
	sim.AddCapacityReservation(otherCR, "m5.large", "us-east-1b", 3, "targeted", nil)
	out, err := c.DescribeCapacityReservations(simtest.Ctx(t), &ec2.DescribeCapacityReservationsInput{Filters: []types.Filter{
		{Name: aws.String("instance-match-criteria"), Values: []string{"targeted"}},
		{Name: aws.String("tag:Team"), Values: []string{"db"}},
	}})
	if err != nil || len(out.CapacityReservations) != 1 || aws.ToString(out.CapacityReservations[0].CapacityReservationId) != targetedCR {
		t.Fatalf("filtered: %v %+v", err, out)
	}
	var ids []string
	p := ec2.NewDescribeCapacityReservationsPaginator(c, &ec2.DescribeCapacityReservationsInput{MaxResults: aws.Int32(2)})
	for p.HasMorePages() {
		page, err := p.NextPage(simtest.Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, cr := range page.CapacityReservations {
			ids = append(ids, aws.ToString(cr.CapacityReservationId))
		}
	}
	if len(ids) != 3 || ids[0] != openCR || ids[2] != otherCR {
		t.Fatalf("paged ids = %v", ids)
	}
	_, err = c.DescribeCapacityReservations(simtest.Ctx(t), &ec2.DescribeCapacityReservationsInput{Filters: []types.Filter{{Name: aws.String("colour"), Values: []string{"red"}}}})
	simtest.WantCode(t, err, "InvalidParameterValue")
	_, err = c.DescribeCapacityReservations(simtest.Ctx(t), &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-0ffffffffffffffff"}})
	simtest.WantCode(t, err, "InvalidCapacityReservationId.NotFound")
}
