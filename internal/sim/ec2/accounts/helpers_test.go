package accounts_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	ec2sim "github.com/ec2-operator/ec2-operator/internal/sim/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2/accounts"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	stssim "github.com/ec2-operator/ec2-operator/internal/sim/sts"
)

// The world the tests run in: the operator's identity (a long-term key in
// operatorAccount) may assume one role in each of two workload accounts,
// each role guarded by its own external ID, as an AWSAccount resource per
// namespace would configure.
const (
	operatorAccount = "111111111111"
	operatorKey     = "AKIAOPERATOR0000001"
	operatorSecret  = "operator-secret"

	accountA = "222222222222"
	roleA    = "arn:aws:iam::222222222222:role/ec2-operator"
	extA     = "ns-a-7f3c"

	accountB = "333333333333"
	roleB    = "arn:aws:iam::333333333333:role/ec2-operator"
	extB     = "ns-b-91d2"
)

// world is one STS endpoint and an EC2 endpoint per workload account behind
// the account router.
type world struct {
	clock  *simtest.Clock
	sts    *stssim.Sim
	sims   map[string]*ec2sim.Sim
	router *accounts.Router
	stsURL string
	ec2URL string
}

// newWorld builds the world. The fake clock starts at the wall clock's
// current second: the SDK's credentials cache judges expiry by the wall
// clock, so issued credentials must look fresh to it too.
func newWorld(t *testing.T) *world {
	t.Helper()
	clock := simtest.NewClock(time.Now().UTC().Truncate(time.Second))
	s := stssim.New(stssim.Config{Seed: 1, Now: clock.Now})
	s.AddUser(operatorAccount, operatorKey, operatorSecret)
	s.AddRole(roleA, []string{operatorKey}, extA)
	s.AddRole(roleB, []string{operatorKey}, extB)
	// Distinct seeds keep instance ids distinct across accounts, so a
	// lookup by id can only succeed in the account that launched it.
	sims := map[string]*ec2sim.Sim{
		accountA: ec2sim.New(ec2sim.Config{Seed: 2, AccountID: accountA, Now: clock.Now}),
		accountB: ec2sim.New(ec2sim.Config{Seed: 3, AccountID: accountB, Now: clock.Now}),
	}
	stsSrv := httptest.NewServer(s)
	t.Cleanup(stsSrv.Close)
	router := accounts.NewRouter(s, sims)
	ec2Srv := httptest.NewServer(router)
	t.Cleanup(ec2Srv.Close)
	return &world{clock: clock, sts: s, sims: sims, router: router, stsURL: stsSrv.URL, ec2URL: ec2Srv.URL}
}

// fastRetryer keeps retried calls quick.
func fastRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 5 * time.Millisecond, nil })
	})
}

// assumedCredentials is what the operator would build for an AWSAccount:
// the SDK's AssumeRole provider, signing STS calls with the operator's own
// key and passing the account's external ID (none when empty), behind the
// SDK's cache.
func (w *world) assumedCredentials(roleARN, externalID string) *aws.CredentialsCache {
	stsClient := sts.NewFromConfig(aws.Config{
		Region:      stssim.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider(operatorKey, operatorSecret, ""),
		Retryer:     fastRetryer,
	}, func(o *sts.Options) { o.BaseEndpoint = aws.String(w.stsURL) })
	return aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsClient, roleARN, func(o *stscreds.AssumeRoleOptions) {
		if externalID != "" {
			o.ExternalID = aws.String(externalID)
		}
		o.RoleSessionName = "ec2-operator"
	}))
}

// ec2Client returns a real SDK EC2 client that signs with creds and talks
// to the account router.
func (w *world) ec2Client(creds aws.CredentialsProvider) *ec2.Client {
	return ec2.NewFromConfig(aws.Config{
		Region:      ec2sim.DefaultRegion,
		Credentials: creds,
		Retryer:     fastRetryer,
	}, func(o *ec2.Options) { o.BaseEndpoint = aws.String(w.ec2URL) })
}

// staticClient returns an EC2 client signing with fixed keys.
func (w *world) staticClient(keyID, secret, token string) *ec2.Client {
	return w.ec2Client(credentials.NewStaticCredentialsProvider(keyID, secret, token))
}

// ctx returns a test-scoped context with a generous deadline.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// runOne launches one instance with the seeded defaults and returns it.
func runOne(t *testing.T, c *ec2.Client) types.Instance {
	t.Helper()
	out, err := c.RunInstances(ctx(t), &ec2.RunInstancesInput{
		ImageId:      aws.String(ec2sim.DefaultImageID),
		InstanceType: types.InstanceTypeT3Micro,
		MinCount:     aws.Int32(1),
		MaxCount:     aws.Int32(1),
		SubnetId:     aws.String(ec2sim.DefaultSubnetIDs[0]),
	})
	if err != nil {
		t.Fatalf("RunInstances: %v", err)
	}
	if aws.ToString(out.OwnerId) == "" || len(out.Instances) != 1 {
		t.Fatalf("RunInstances returned owner %q and %d instances", aws.ToString(out.OwnerId), len(out.Instances))
	}
	return out.Instances[0]
}

// wantCode fails unless err carries the service error code want, and
// returns the error's message.
func wantCode(t *testing.T, err error, want string) string {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != want {
		t.Fatalf("error = %v, want code %s", err, want)
	}
	return ae.ErrorMessage()
}
