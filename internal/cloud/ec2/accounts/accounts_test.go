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

package accounts

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/callmetrics"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/sim/simworld"
	"github.com/ec2-operator/ec2-operator/internal/sim/stssim"
)

// The accounts world of these tests: the operator's identity (a long-term key of
// account 111111111111) may assume a role in each of two workload accounts, each
// guarded by an external ID.
const (
	testOperatorKey = "AKIAOPERATOR0000001"
	testAccountA    = "222222222222"
	testRoleA       = "arn:aws:iam::222222222222:role/ec2-operator"
	testExternalA   = "team-a"
	testAccountB    = "333333333333"
	testRoleB       = "arn:aws:iam::333333333333:role/ec2-operator"
)

type accountsEnv struct {
	clients *RegionalClients
	sts     *stssim.Sim
	sims    map[string]*ec2sim.Sim
	clock   *simtest.Clock
	rec     *callmetrics.MemoryRecorder
}

// newAccountsEnv serves STS and, behind the account router, an EC2 emulator per
// account. The clock starts at the wall clock: the SDK's credentials cache judges
// expiry by the wall clock, so issued credentials must look fresh to it too.
func newAccountsEnv(t *testing.T) *accountsEnv {
	t.Helper()
	clock := simtest.NewClock(time.Now().UTC().Truncate(time.Second))
	w := simworld.New(t, simworld.WithClock(clock), simworld.STS(stssim.Config{Seed: 1}),
		simworld.User("111111111111", testOperatorKey, "secret"),
		simworld.Role(testRoleA, testExternalA, testOperatorKey),
		simworld.Role(testRoleB, "", testOperatorKey),
		simworld.Account("111111111111", ec2sim.Config{Seed: 1}),
		simworld.Account(testAccountA, ec2sim.Config{Seed: 2}),
		simworld.Account(testAccountB, ec2sim.Config{Seed: 3}))
	rec := callmetrics.NewMemoryRecorder()
	clients := NewRegionalClientsFromConfig(aws.Config{
		Region:      ec2sim.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider(testOperatorKey, "secret", ""),
	}, ec2.Options{Endpoint: w.EC2URL, STSEndpoint: w.STSURL, NoPacing: true, MaxAttempts: 2, MaxBackoff: 5 * time.Millisecond, Recorder: rec})
	return &accountsEnv{clients: clients, sts: w.STS, sims: w.Sims, clock: clock, rec: rec}
}

// basicLaunch is a valid launch in any emulated account's seeded resources.
func basicLaunch(token string) ec2.LaunchRequest {
	return ec2.LaunchRequest{
		ClientToken:      token,
		ImageID:          ec2sim.DefaultImageID,
		InstanceType:     "t3.micro",
		SubnetID:         ec2sim.DefaultSubnetIDs[0],
		SecurityGroupIDs: []string{ec2sim.DefaultSecurityGroupID},
		Tags:             ec2.DesiredTags(nil, "default", "web", "uid-"+token, "cluster-1"),
	}
}

func TestAnAccountsClientActsOnlyInThatAccount(t *testing.T) {
	env := newAccountsEnv(t)
	ctx := context.Background()
	role := AssumedRole{Name: "team-a", RoleARN: testRoleA, ExternalID: testExternalA}
	inA, err := env.clients.ForAccount(ctx, role, ec2sim.DefaultRegion)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := inA.RunInstance(ctx, basicLaunch("tok-a"))
	if err != nil {
		t.Fatal(err)
	}
	if got := env.sims[testAccountA].Instances(); len(got) != 1 || got[0].ID != inst.ID {
		t.Fatalf("account A holds %v, want only %s", got, inst.ID)
	}
	// The operator's own client does not see it: another account.
	own, _ := env.clients.ForRegion(ctx, ec2sim.DefaultRegion)
	if _, err := own.GetInstance(ctx, inst.ID); !awserrors.IsNotFound(err) {
		t.Errorf("own account's lookup of %s = %v, want not found", inst.ID, err)
	}
	// The same account and region is one client, and one assumed role serves them all.
	again, _ := env.clients.ForAccount(ctx, role, ec2sim.DefaultRegion)
	if again != inA {
		t.Error("a second ForAccount made another client")
	}
	if _, err := again.GetInstance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	if n := env.sts.Calls("AssumeRole"); n != 1 {
		t.Errorf("AssumeRole calls = %d, want 1 (credentials cached)", n)
	}

	// Verifying assumes the role afresh, so that a trust policy changed in AWS shows;
	// the clients go on with the new session.
	id, err := env.clients.VerifyAccount(ctx, role, ec2sim.DefaultRegion)
	if err != nil {
		t.Fatal(err)
	}
	if n := env.sts.Calls("AssumeRole"); n != 2 {
		t.Errorf("AssumeRole calls after verifying = %d, want 2", n)
	}
	if _, err := again.GetInstance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	if n := env.sts.Calls("AssumeRole"); n != 2 {
		t.Errorf("AssumeRole calls after a lookup with the new session = %d, want 2", n)
	}
	if id.Account != testAccountA || !strings.HasPrefix(id.ARN, "arn:aws:sts::222222222222:assumed-role/ec2-operator/ec2-operator-team-a") {
		t.Errorf("VerifyAccount = %+v, want account %s and the assumed-role session ARN", id, testAccountA)
	}
	// The calls made in the account are recorded under its name.
	if env.rec.Calls("AssumeRole", "") != 2 {
		t.Errorf("recorded AssumeRole calls = %d, want 2", env.rec.Calls("AssumeRole", ""))
	}
}

func TestExpiredAssumedCredentialsAreRenewedAfterEC2RefusesThem(t *testing.T) {
	env := newAccountsEnv(t)
	ctx := context.Background()
	c, err := env.clients.ForAccount(ctx, AssumedRole{Name: "team-a", RoleARN: testRoleA, ExternalID: testExternalA}, ec2sim.DefaultRegion)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := c.RunInstance(ctx, basicLaunch("tok-x"))
	if err != nil {
		t.Fatal(err)
	}
	// Past the session's hour on STS's and EC2's clock; the SDK's cache, which uses
	// the wall clock, still believes the credentials fresh.
	env.clock.Advance(2 * time.Hour)
	c.ChangedElsewhere(inst.ID)
	_, err = c.GetInstance(ctx, inst.ID)
	if awserrors.CodeOf(err) != "RequestExpired" {
		t.Fatalf("lookup with expired credentials = %v, want RequestExpired", err)
	}
	// The refusal dropped the cached credentials: the next call assumes the role again.
	if _, err := c.GetInstance(ctx, inst.ID); err != nil {
		t.Fatalf("lookup after renewal: %v", err)
	}
	if n := env.sts.Calls("AssumeRole"); n != 2 {
		t.Errorf("AssumeRole calls = %d, want 2 (one renewal)", n)
	}
}

func TestARoleThatCannotBeAssumedIsReportedWithSTSsAnswer(t *testing.T) {
	env := newAccountsEnv(t)
	_, err := env.clients.VerifyAccount(context.Background(),
		AssumedRole{Name: "team-a", RoleARN: testRoleA, ExternalID: "wrong"}, ec2sim.DefaultRegion)
	var stsErr *STSError
	if !errors.As(err, &stsErr) || stsErr.Code != "AccessDenied" || !strings.Contains(stsErr.Message, "sts:AssumeRole") {
		t.Fatalf("VerifyAccount with the wrong external ID = %v, want AccessDenied naming sts:AssumeRole", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows a secret: %v", err)
	}
}

func TestAChangedRoleUnderTheSameNameGetsNewCredentialsAndClients(t *testing.T) {
	env := newAccountsEnv(t)
	ctx := context.Background()
	a, _ := env.clients.ForAccount(ctx, AssumedRole{Name: "team", RoleARN: testRoleA, ExternalID: testExternalA}, ec2sim.DefaultRegion)
	b, _ := env.clients.ForAccount(ctx, AssumedRole{Name: "team", RoleARN: testRoleB}, ec2sim.DefaultRegion)
	if a == b {
		t.Fatal("the same client after the role changed")
	}
	if _, err := b.RunInstance(ctx, basicLaunch("tok-b")); err != nil {
		t.Fatal(err)
	}
	if len(env.sims[testAccountB].Instances()) != 1 || len(env.sims[testAccountA].Instances()) != 0 {
		t.Errorf("instances: A %d, B %d; want the launch in B", len(env.sims[testAccountA].Instances()), len(env.sims[testAccountB].Instances()))
	}
}
