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

package accounts_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// TestInstancesLandInTheAssumedAccount follows the IAM User Guide on
// cross-account access with roles (temporary credentials from
// sts:AssumeRole act in the account that owns the role) and the EC2 API
// Reference for DescribeInstances (an id that does not exist in the
// caller's account is InvalidInstanceID.NotFound; Reservation.ownerId is
// the account that owns the instance).
func TestInstancesLandInTheAssumedAccount(t *testing.T) {
	w := newWorld(t)
	a := w.EC2Client(assumedCredentials(w, roleA, extA))
	b := w.EC2Client(assumedCredentials(w, roleB, extB))

	out, err := a.RunInstances(simtest.Ctx(t), &ec2.RunInstancesInput{
		ImageId: aws.String("ami-0abcdef1234567890"), InstanceType: "t3.micro",
		MinCount: aws.Int32(1), MaxCount: aws.Int32(1),
	})
	if err != nil {
		t.Fatalf("RunInstances in A: %v", err)
	}
	if got := aws.ToString(out.OwnerId); got != accountA {
		t.Fatalf("reservation ownerId = %s, want %s", got, accountA)
	}
	id := aws.ToString(out.Instances[0].InstanceId)
	if _, ok := w.Sims[accountA].Instance(id); !ok {
		t.Fatalf("%s is not in account A's Sim", id)
	}
	if _, ok := w.Sims[accountB].Instance(id); ok {
		t.Fatalf("%s leaked into account B's Sim", id)
	}

	desc, err := a.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	if err != nil || len(desc.Reservations) != 1 || aws.ToString(desc.Reservations[0].OwnerId) != accountA {
		t.Fatalf("A's DescribeInstances(%s) = %+v, %v", id, desc, err)
	}
	_, err = b.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	if msg := simtest.WantCode(t, err, "InvalidInstanceID.NotFound").ErrorMessage(); msg != "The instance ID '"+id+"' does not exist" {
		t.Fatalf("message = %q", msg)
	}
	_, err = b.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}})
	simtest.WantCode(t, err, "InvalidInstanceID.NotFound")
	all, err := b.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
	if err != nil || len(all.Reservations) != 0 {
		t.Fatalf("B sees %d reservations (%v), want none", len(all.Reservations), err)
	}

	// B's own launch is B's, with B's owner id on the seeded subnet too.
	inB := runOne(t, b)
	if _, ok := w.Sims[accountA].Instance(aws.ToString(inB.InstanceId)); ok {
		t.Fatal("B's instance is in account A's Sim")
	}
	subnets, err := b.DescribeSubnets(simtest.Ctx(t), &ec2.DescribeSubnetsInput{})
	if err != nil || len(subnets.Subnets) == 0 || aws.ToString(subnets.Subnets[0].OwnerId) != accountB {
		t.Fatalf("B's subnets = %+v, %v", subnets, err)
	}
	if w.STS.Calls("AssumeRole") != 2 {
		t.Fatalf("AssumeRole calls = %d, want one per account", w.STS.Calls("AssumeRole"))
	}
}

// TestOneAccountsCredentialsNeverActInAnother follows the IAM User Guide on
// the external ID (each role's trust policy requires its own sts:ExternalId,
// so a namespace's external ID cannot open another account's role) and the
// STS AssumeRole error AccessDenied. The EC2 call fails before any request
// reaches either account's EC2 endpoint.
func TestOneAccountsCredentialsNeverActInAnother(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct{ name, ext string }{{"other namespace's external id", extA}, {"no external id", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.EC2Client(assumedCredentials(w, roleB, tc.ext)).DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
			msg := simtest.WantCode(t, err, "AccessDenied").ErrorMessage()
			if want := "User: arn:aws:iam::111111111111:user/ec2-operator is not authorized to perform: sts:AssumeRole on resource: " + roleB; msg != want {
				t.Fatalf("message = %q, want %q", msg, want)
			}
		})
	}
	for acct, sim := range w.Sims {
		if n := sim.Calls("DescribeInstances"); n != 0 {
			t.Fatalf("account %s's EC2 saw %d DescribeInstances calls", acct, n)
		}
	}
}

// TestUnknownAccessKeyGetsAuthFailure follows the EC2 API Reference's
// common client error AuthFailure ("AWS was not able to validate the
// provided access credentials") for a key AWS has no record of.
func TestUnknownAccessKeyGetsAuthFailure(t *testing.T) {
	w := newWorld(t)
	_, err := w.StaticClient("AKIAUNKNOWN000000001", "secret", "").DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
	if msg := simtest.WantCode(t, err, "AuthFailure").ErrorMessage(); msg != "AWS was not able to validate the provided access credentials" {
		t.Fatalf("message = %q", msg)
	}
}

// TestTheSandboxCanLetUnknownLongTermKeysIntoOneAccount checks the local sandbox's
// convenience: placeholder keys reach the account it names, while a key with a
// session token STS did not issue is still refused.
func TestTheSandboxCanLetUnknownLongTermKeysIntoOneAccount(t *testing.T) {
	w := newWorld(t)
	w.Router.AcceptUnknownKeysAs(accountA)
	if _, err := w.StaticClient("x", "x", "").DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{}); err != nil {
		t.Fatalf("a placeholder key: %v", err)
	}
	if n := w.Sims[accountA].Calls("DescribeInstances"); n != 1 {
		t.Errorf("account A saw %d DescribeInstances, want 1", n)
	}
	_, err := w.StaticClient("ASIAFORGED0000000001", "x", "forged-token").DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
	simtest.WantCode(t, err, "AuthFailure")
}

// TestForeignSessionTokenGetsAuthFailure checks that an assumed key for
// account A presented with the session token issued for account B is not
// accepted in either account: temporary credentials are only valid as the
// set STS issued (IAM User Guide, "Using temporary credentials with AWS
// resources": the session token must accompany the access key).
func TestForeignSessionTokenGetsAuthFailure(t *testing.T) {
	w := newWorld(t)
	credsA, err := assumedCredentials(w, roleA, extA).Retrieve(simtest.Ctx(t))
	if err != nil {
		t.Fatalf("Retrieve A: %v", err)
	}
	credsB, err := assumedCredentials(w, roleB, extB).Retrieve(simtest.Ctx(t))
	if err != nil {
		t.Fatalf("Retrieve B: %v", err)
	}
	mixed := w.StaticClient(credsA.AccessKeyID, credsA.SecretAccessKey, credsB.SessionToken)
	_, err = mixed.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
	simtest.WantCode(t, err, "AuthFailure")
	noToken := w.StaticClient(credsA.AccessKeyID, credsA.SecretAccessKey, "")
	_, err = noToken.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
	simtest.WantCode(t, err, "AuthFailure")
	for acct, sim := range w.Sims {
		if n := sim.Calls("DescribeInstances"); n != 0 {
			t.Fatalf("account %s's EC2 saw %d DescribeInstances calls", acct, n)
		}
	}
}

// TestAccountWithoutEC2EndpointIsOptInRequired checks that a valid key of an
// account the router has no Sim for (here the operator's own account) is
// refused with EC2's OptInRequired instead of reaching another account.
func TestAccountWithoutEC2EndpointIsOptInRequired(t *testing.T) {
	w := newWorld(t)
	_, err := w.StaticClient(operatorKey, operatorSecret, "").DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
	simtest.WantCode(t, err, "OptInRequired")
}

// TestExpiredCredentialsAreRefreshed follows the AssumeRole documentation
// (Credentials.Expiration ends the session; DurationSeconds 900 is fifteen
// minutes) and EC2's answer to expired temporary credentials, RequestExpired
// "Request has expired.". The SDK's credentials cache decides on its own
// that credentials are stale only by the wall clock, which a fake clock
// cannot move; after EC2 rejects them the cache is invalidated, as a caller
// reacting to RequestExpired would, and its next retrieval assumes the role
// again.
func TestExpiredCredentialsAreRefreshed(t *testing.T) {
	w := newWorld(t)
	cache := assumedCredentials(w, roleA, extA)
	a := w.EC2Client(cache)
	id := aws.ToString(runOne(t, a).InstanceId)

	first, err := cache.Retrieve(simtest.Ctx(t))
	if err != nil {
		t.Fatalf("Retrieve: %v", err)
	}
	if want := w.Clock.Now().Add(15 * time.Minute); !first.Expires.Equal(want) {
		t.Fatalf("Expires = %v, want the provider's default 15 minutes, %v", first.Expires, want)
	}
	stale := w.StaticClient(first.AccessKeyID, first.SecretAccessKey, first.SessionToken)

	w.Clock.Advance(15*time.Minute - time.Second)
	if _, err := stale.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("one second before Expiration: %v", err)
	}
	w.Clock.Advance(time.Second)
	_, err = stale.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	if msg := simtest.WantCode(t, err, "RequestExpired").ErrorMessage(); msg != "Request has expired." {
		t.Fatalf("message = %q", msg)
	}
	_, err = a.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	simtest.WantCode(t, err, "RequestExpired")

	cache.Invalidate()
	if _, err := a.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("after refresh: %v", err)
	}
	if got := w.STS.Calls("AssumeRole"); got != 2 {
		t.Fatalf("AssumeRole calls = %d, want 2 (initial and refresh)", got)
	}
	second, _ := cache.Retrieve(simtest.Ctx(t))
	if second.AccessKeyID == first.AccessKeyID {
		t.Fatal("refresh reused the expired access key")
	}
	if acct, ok := w.STS.AccountOfAccessKey(second.AccessKeyID); !ok || acct != accountA {
		t.Fatalf("refreshed key acts in %q, %v", acct, ok)
	}
}
