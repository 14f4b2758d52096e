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
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// spotRun is basicRun as a Spot Instance with the given request type and
// interruption behaviour.
func spotRun(requestType types.SpotInstanceType, behavior types.InstanceInterruptionBehavior) *ec2.RunInstancesInput {
	in := basicRun()
	in.InstanceMarketOptions = &types.InstanceMarketOptionsRequest{
		MarketType:  types.MarketTypeSpot,
		SpotOptions: &types.SpotMarketOptions{SpotInstanceType: requestType, InstanceInterruptionBehavior: behavior},
	}
	return in
}

// EC2 User Guide, "Spot Instance interruption notices": EC2 emits an "EC2
// Spot Instance Interruption Warning" with detail {instance-id,
// instance-action} two minutes before it interrupts the instance; the
// interruption then shows as ordinary state changes, with the state reason
// Server.SpotInstanceTermination (EC2 API Reference, StateReason).
func TestSpotInterruptionWarningThenTerminationTwoMinutesLater(t *testing.T) {
	clock := newFakeClock()
	sim, c := newEnv(t, Config{Now: clock.Now})
	id := runOne(t, c, spotRun(types.SpotInstanceTypeOneTime, types.InstanceInterruptionBehaviorTerminate))
	describeOne(t, c, id)
	rec := record(sim)
	t0 := clock.Now()
	if err := sim.InjectSpotInterruption(id, "terminate"); err != nil {
		t.Fatalf("InjectSpotInterruption: %v", err)
	}
	events := rec.take(sim)
	if len(events) != 1 || events[0].DetailType != DetailTypeSpotInterruption {
		t.Fatalf("events = %+v, want one interruption warning", events)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(events[0].JSON()), &doc); err != nil {
		t.Fatal(err)
	}
	wantDetail := map[string]any{"instance-id": id, "instance-action": "terminate"}
	if d, _ := json.Marshal(doc["detail"]); string(d) != mustJSON(wantDetail) {
		t.Fatalf("detail = %s, want %s", d, mustJSON(wantDetail))
	}
	if doc["detail-type"] != "EC2 Spot Instance Interruption Warning" || doc["source"] != "aws.ec2" || doc["version"] != "0" {
		t.Fatalf("envelope = %v", doc)
	}

	clock.Advance(SpotInterruptionNotice - time.Second)
	if got := rec.take(sim); len(got) != 0 {
		t.Fatalf("events during the notice = %+v, want none", got)
	}
	if in, _ := sim.Instance(id); in.State != StateRunning {
		t.Fatalf("state during the notice = %s, want running", in.State)
	}
	clock.Advance(time.Second)
	events = rec.take(sim)
	if got := states(events); !slices.Equal(got, []string{StateShuttingDown, StateTerminated}) {
		t.Fatalf("states after the notice = %v, want shutting-down, terminated", got)
	}
	if want := t0.Add(SpotInterruptionNotice).Format(eventTimeFormat); events[0].Time != want {
		t.Fatalf("interruption time = %s, want %s", events[0].Time, want)
	}
	in, _ := sim.Instance(id)
	if in.StateReasonCode != "Server.SpotInstanceTermination" {
		t.Fatalf("StateReasonCode = %q, want Server.SpotInstanceTermination", in.StateReasonCode)
	}
	got := describeOne(t, c, id)
	if aws.ToString(got.StateReason.Code) != "Server.SpotInstanceTermination" {
		t.Fatalf("DescribeInstances stateReason = %q", aws.ToString(got.StateReason.Code))
	}
}

// EC2 User Guide, "Spot Instance interruption notices": a stop interruption
// also gets two minutes' notice, while hibernation "gets the interruption
// notice, but not two minutes in advance, because hibernation begins
// immediately".
func TestSpotInterruptionStopAndHibernate(t *testing.T) {
	clock := newFakeClock()
	sim, c := newEnv(t, Config{Now: clock.Now})
	stopper := runOne(t, c, spotRun(types.SpotInstanceTypePersistent, types.InstanceInterruptionBehaviorStop))
	sleeper := runOne(t, c, spotRun(types.SpotInstanceTypePersistent, types.InstanceInterruptionBehaviorStop))
	describeOne(t, c, stopper)
	rec := record(sim)
	if err := sim.InjectSpotInterruption(stopper, ""); err != nil {
		t.Fatalf("InjectSpotInterruption(stop by behaviour): %v", err)
	}
	if err := sim.InjectSpotInterruption(sleeper, "hibernate"); err != nil {
		t.Fatalf("InjectSpotInterruption(hibernate): %v", err)
	}
	events := rec.take(sim)
	var summary []string
	for _, e := range events {
		summary = append(summary, e.Detail.InstanceID+":"+e.Detail.InstanceAction+e.Detail.State)
	}
	want := []string{stopper + ":stop", sleeper + ":hibernate", sleeper + ":stopping", sleeper + ":stopped"}
	if !slices.Equal(summary, want) {
		t.Fatalf("events = %v, want %v", summary, want)
	}
	clock.Advance(SpotInterruptionNotice)
	if got := states(rec.take(sim)); !slices.Equal(got, []string{StateStopping, StateStopped}) {
		t.Fatalf("stop interruption states = %v", got)
	}
	if in, _ := sim.Instance(sleeper); in.StateReasonCode != hibernateReasonCode {
		t.Fatalf("hibernated instance reason = %q", in.StateReasonCode)
	}
}

// EC2 User Guide, "EC2 instance rebalance recommendations": the event is
// "EC2 Instance Rebalance Recommendation" with detail {instance-id} and
// changes nothing. Only Spot Instances get interruption signals.
func TestRebalanceRecommendationAndOnDemandRefusal(t *testing.T) {
	sim, c := newEnv(t, Config{})
	spot := runOne(t, c, spotRun(types.SpotInstanceTypeOneTime, ""))
	onDemand := runOne(t, c, basicRun())
	describeOne(t, c, spot)
	rec := record(sim)
	if err := sim.InjectRebalanceRecommendation(spot); err != nil {
		t.Fatalf("InjectRebalanceRecommendation: %v", err)
	}
	events := rec.take(sim)
	if len(events) != 1 || events[0].DetailType != "EC2 Instance Rebalance Recommendation" {
		t.Fatalf("events = %+v", events)
	}
	if got := events[0].JSON(); !json.Valid([]byte(got)) || mustJSON(map[string]any{"instance-id": spot}) != mustJSON(events[0].Detail) {
		t.Fatalf("rebalance JSON = %s", got)
	}
	if err := sim.InjectSpotInterruption(onDemand, "terminate"); err == nil {
		t.Fatal("InjectSpotInterruption of an On-Demand instance succeeded")
	}
	if err := sim.InjectSpotInterruption(spot, "explode"); err == nil {
		t.Fatal("InjectSpotInterruption with an unknown action succeeded")
	}
}

// mustJSON encodes v for comparisons.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
