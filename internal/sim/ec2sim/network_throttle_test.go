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
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// The networking actions are throttled like every other EC2 API ("Request
// throttling for the Amazon EC2 API"): AllocateAddress, AssociateAddress,
// DisassociateAddress, ReleaseAddress and ModifyNetworkInterfaceAttribute
// draw from the mutating bucket, DescribeAddresses from the non-mutating one
// and DescribeNetworkInterfaces, a listed action, from the smaller unfiltered
// bucket when called without filters or pagination. Every call, refused or
// not, is counted in the call log.
func TestNetworkActionsAreThrottledByCategoryAndLogged(t *testing.T) {
	limits := ec2limits.Documented()
	for action, want := range map[string]ec2limits.Bucket{
		"AllocateAddress": ec2limits.Mutating, "AssociateAddress": ec2limits.Mutating,
		"DisassociateAddress": ec2limits.Mutating, "ReleaseAddress": ec2limits.Mutating,
		"ModifyNetworkInterfaceAttribute": ec2limits.Mutating, "DescribeAddresses": ec2limits.NonMutating,
		"DescribeNetworkInterfaces": ec2limits.NonMutating,
	} {
		if got := limits.Request(action); got != want {
			t.Errorf("%s draws from %v, want %v", action, got, want)
		}
	}
	if got := limits.Request(ec2limits.RequestKey("DescribeNetworkInterfaces", false)); got != ec2limits.UnfilteredNonMutating {
		t.Errorf("unfiltered DescribeNetworkInterfaces draws from %v", got)
	}

	clock := newFakeClock()
	tight, err := limits.Parse("DescribeAddresses=2/1")
	if err != nil {
		t.Fatal(err)
	}
	sim := New(Config{Now: clock.Now, Throttle: &tight})
	c := ec2.New(newClient(t, sim).Options(), func(o *ec2.Options) { o.RetryMaxAttempts = 1 })
	for range 2 {
		if _, err := c.DescribeAddresses(simtest.Ctx(t), &ec2.DescribeAddressesInput{}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.DescribeAddresses(simtest.Ctx(t), &ec2.DescribeAddressesInput{})
	simtest.WantCode(t, err, "RequestLimitExceeded")
	if _, err := c.AllocateAddress(simtest.Ctx(t), &ec2.AllocateAddressInput{Domain: types.DomainTypeVpc}); err != nil {
		t.Fatalf("AllocateAddress has its own bucket: %v", err)
	}
	clock.Advance(time.Second)
	if _, err := c.DescribeNetworkInterfaces(simtest.Ctx(t), &ec2.DescribeNetworkInterfacesInput{Filters: []types.Filter{{Name: aws.String("vpc-id"), Values: []string{DefaultVPCID}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DescribeAddresses(simtest.Ctx(t), &ec2.DescribeAddressesInput{}); err != nil {
		t.Fatalf("one token refills in a second: %v", err)
	}
	if got := sim.ThrottledCalls()["DescribeAddresses"]; got != 1 {
		t.Errorf("ThrottledCalls[DescribeAddresses] = %d, want 1", got)
	}
	if sim.Calls("DescribeAddresses") != 4 || sim.Calls("AllocateAddress") != 1 || sim.Calls("DescribeNetworkInterfaces") != 1 {
		t.Errorf("call counts = %v", sim.CallCounts())
	}
	var logged int
	for _, r := range sim.Requests() {
		if r.Operation == "DescribeAddresses" && r.ErrorCode == "RequestLimitExceeded" {
			logged++
		}
	}
	if logged != 1 {
		t.Errorf("the refused call is logged %d times, want 1", logged)
	}
}
