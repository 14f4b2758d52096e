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

package ec2

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go/middleware"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/callmetrics"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/coalesce"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/throttle"
	"github.com/ec2-operator/ec2-operator/internal/cloud/sdkhttp"
	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
)

// Defaults for Options fields left zero.
const (
	// DefaultMaxAttempts is the SDK's attempts per call, the first one included.
	DefaultMaxAttempts = 5
	// DefaultMaxBackoff caps the delay between two attempts.
	DefaultMaxBackoff = 20 * time.Second
	// DefaultBatchWindow is how long a lookup waits for others to share its request.
	DefaultBatchWindow = 10 * time.Millisecond
	// DefaultMaxBatchSize is the most instance IDs one coalesced request carries:
	// DescribeInstances documents no limit on InstanceIds, and 1,000 keeps a whole
	// fleet of that size to one call.
	DefaultMaxBatchSize = 1000
	// DefaultBatchTimeout bounds one coalesced DescribeInstances batch, which runs on
	// behalf of many callers and so cannot use any single caller's context.
	DefaultBatchTimeout = 30 * time.Second
	// DefaultPageSize is EC2's largest DescribeInstances page.
	DefaultPageSize int32 = 1000
)

// Options configures an AWSClient. Zero values select the defaults above.
type Options struct {
	// Region is the AWS region; empty uses the default chain (AWS_REGION, profile).
	Region string
	// ExtraRegions are regions accepted besides those of the known partitions
	// (package regions): regions newer than this build (--extra-regions).
	ExtraRegions []string
	// Endpoint overrides the EC2 endpoint URL. Empty keeps the SDK default, which also
	// honours AWS_ENDPOINT_URL_EC2 and AWS_ENDPOINT_URL.
	Endpoint string
	// MaxAttempts bounds the SDK's attempts per call, the first one included.
	MaxAttempts int
	// MaxBackoff caps the delay between two attempts.
	MaxBackoff time.Duration
	// Limits are the per-API buckets the client keeps to (see pacer); nil means EC2's
	// documented defaults (ec2limits.Documented).
	Limits *ec2limits.Limits
	// LearnLimits lets the per-API buckets probe above Limits while calls wait for
	// them, and keep the highest rate EC2 allows (see budget): the account's limits
	// are not known, and AWS raises them per account on request. Without it the
	// buckets never exceed Limits.
	LearnLimits bool
	// NoPacing turns the per-API buckets off, for an endpoint that does not throttle
	// (a test emulator); EC2 itself would then refuse calls over its limits.
	NoPacing bool
	// RateLimit, when positive, is an additional cap in requests per second over all
	// calls, retries included. Zero or negative means no overall cap.
	RateLimit float64
	// MaxPacingWait is how long a call may wait for its budget before it fails with
	// awserrors.CodeClientRateLimited; zero means throttle.DefaultMaxWait.
	MaxPacingWait time.Duration
	// BatchWindow is how long GetInstance waits for more lookups to share one
	// DescribeInstances call.
	BatchWindow time.Duration
	// MaxBatchSize sends a batch early once it holds this many distinct IDs.
	MaxBatchSize int
	// BatchTimeout bounds one coalesced DescribeInstances or TerminateInstances batch.
	BatchTimeout time.Duration
	// TerminateWindow is how long a termination waits for others to share its
	// TerminateInstances call.
	TerminateWindow time.Duration
	// PageSize is the MaxResults of filtered DescribeInstances queries (5 to 1000).
	PageSize int32
	// ReadAheadTTL, when positive, lets a batched DescribeInstances also refresh the
	// other instances callers have asked about, and serves settled instances from
	// answers at most this old (see coalesce.DescribeBatcher). The manager sets it to the resync
	// period; zero describes every lookup.
	ReadAheadTTL time.Duration
	// TransitionTTL, with ReadAheadTTL, serves answers for instances in transition
	// (pending, stopping) that are at most this old, so that many instances polled
	// while they launch share one DescribeInstances call. The manager sets it to half
	// the poll interval; zero describes every lookup of an instance in transition.
	TransitionTTL time.Duration
	// SelectorTTL is how long answers to subnet and security-group selector queries
	// are shared; zero means DefaultSelectorTTL.
	SelectorTTL time.Duration
	// Recorder receives one record per SDK attempt; nil records nothing.
	Recorder callmetrics.CallRecorder
	// HTTPClient, when set, replaces the SDK's HTTP client.
	HTTPClient aws.HTTPClient
	// Credentials, when set, replaces the default credential chain (environment,
	// shared files, web identity, IMDS).
	Credentials aws.CredentialsProvider
	// STSEndpoint overrides the STS endpoint URL used to assume the roles of
	// AWSAccounts. Empty keeps the SDK default, which also honours
	// AWS_ENDPOINT_URL_STS and AWS_ENDPOINT_URL.
	STSEndpoint string

	// CredentialsExpired, when set, is called when EC2 answers that the request's
	// credentials expired (see awserrors.ExpiredCredentialsMiddleware).
	CredentialsExpired func()
}

func (o Options) withDefaults() Options {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.Limits == nil {
		documented := ec2limits.Documented()
		o.Limits = &documented
	}
	if o.MaxPacingWait <= 0 {
		o.MaxPacingWait = throttle.DefaultMaxWait
	}
	if o.BatchWindow <= 0 {
		o.BatchWindow = DefaultBatchWindow
	}
	if o.MaxBatchSize <= 0 {
		o.MaxBatchSize = DefaultMaxBatchSize
	}
	if o.BatchTimeout <= 0 {
		o.BatchTimeout = DefaultBatchTimeout
	}
	if o.TerminateWindow <= 0 {
		o.TerminateWindow = DefaultTerminateWindow
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	o.PageSize = min(max(o.PageSize, 5), DefaultPageSize)
	if o.Recorder == nil {
		o.Recorder = callmetrics.NopRecorder{}
	}
	if o.SelectorTTL <= 0 {
		o.SelectorTTL = DefaultSelectorTTL
	}
	return o
}

// AWSClient implements Client with the AWS SDK for Go v2.
type AWSClient struct {
	api *awsec2.Client
	// region is the region the client calls.
	region string
	// pacer keeps calls within EC2's per-API budgets; nil when pacing is off.
	pacer   *throttle.Pacer
	batcher *coalesce.DescribeBatcher[*Instance]
	// terminator shares TerminateInstances calls between terminations due together.
	terminator *coalesce.ActionBatcher[string]
	// owned shares listings of a namespace's instances between callers.
	owned    *ownedLister
	pageSize int32
	// volumes and addresses coalesce lookups of EBS volumes and Elastic IPs.
	volumes   *coalesce.IDBatcher[Volume]
	addresses *coalesce.IDBatcher[Address]
	// ownedAddresses shares listings of a namespace's Elastic IPs between callers.
	ownedAddresses *addressLister
	// compute remembers images and instance types.
	compute computeCache
	// selectors shares answers to subnet, security-group and image queries.
	selectors selectorCache
}

var _ Client = (*AWSClient)(nil)

// New loads the AWS configuration with the default credential chain (environment,
// shared config and credentials files, web identity, IMDS) and returns a client.
func New(ctx context.Context, opts Options) (*AWSClient, error) {
	var load []func(*config.LoadOptions) error
	if opts.Region != "" {
		load = append(load, config.WithRegion(opts.Region))
	}
	if opts.HTTPClient != nil {
		load = append(load, config.WithHTTPClient(opts.HTTPClient))
	}
	if opts.Credentials != nil {
		load = append(load, config.WithCredentialsProvider(opts.Credentials))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		// The error names the failing source, never credential values.
		return nil, fmt.Errorf("loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("no AWS region configured: set the region option or AWS_REGION")
	}
	return NewFromConfig(cfg, opts), nil
}

// NewFromConfig returns a client for an already loaded configuration. Tests use it
// with static credentials and an emulator endpoint.
func NewFromConfig(cfg aws.Config, opts Options) *AWSClient {
	opts = opts.withDefaults()
	if opts.Region != "" {
		cfg.Region = opts.Region
	}
	if opts.Credentials != nil {
		cfg.Credentials = aws.NewCredentialsCache(opts.Credentials)
	}
	p := newPacerFor(opts, cfg.Region)
	api := awsec2.NewFromConfig(cfg, func(o *awsec2.Options) {
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
		if opts.HTTPClient != nil {
			o.HTTPClient = opts.HTTPClient
		}
		// A call's answer must not be lost to the SDK closing the request body early
		// (sdkhttp.WholeBodies): its retry would repeat a call EC2 carried out.
		o.HTTPClient = sdkhttp.WholeBodies(o.HTTPClient)
		o.Retryer = newRetryer(opts)
		o.APIOptions = append(o.APIOptions, callmetrics.Middlewares(opts.Recorder, p))
		if opts.CredentialsExpired != nil {
			o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
				return stack.Finalize.Add(awserrors.ExpiredCredentialsMiddleware{Invalidate: opts.CredentialsExpired}, middleware.After)
			})
		}
	})
	c := &AWSClient{
		api:      api,
		region:   cfg.Region,
		pacer:    p,
		pageSize: opts.PageSize,
	}
	c.batcher = c.newInstanceBatcher(opts)
	c.terminator = c.newTerminateBatcher(opts)
	c.owned = newOwnedLister(api, opts.PageSize, DefaultOwnedTTL)
	c.selectors.ttl = opts.SelectorTTL
	c.ownedAddresses = newAddressLister(c.describeAddresses, DefaultOwnedTTL)
	c.volumes = coalesce.NewIDBatcher(opts.BatchWindow, opts.MaxBatchSize, opts.BatchTimeout, c.describeVolumesByFilter)
	c.addresses = coalesce.NewIDBatcher(opts.BatchWindow, opts.MaxBatchSize, opts.BatchTimeout, c.describeAddressesByFilter)
	return c
}

// newPacerFor returns the client's pacer, or nil when opts ask for none.
func newPacerFor(opts Options, region string) *throttle.Pacer {
	if opts.NoPacing && opts.RateLimit <= 0 {
		return nil
	}
	limits := opts.Limits
	if opts.NoPacing {
		limits = nil // only the overall cap
	}
	p := throttle.New(limits, opts.RateLimit, opts.MaxPacingWait)
	p.Learn = opts.LearnLimits
	if br, ok := opts.Recorder.(callmetrics.BudgetRecorder); ok {
		p.Report = func(key, bucket string, perSecond float64) { br.RecordBudget(region, key, bucket, perSecond) }
	}
	return p
}

// newRetryer is the SDK's standard retryer: exponential backoff with jitter and a
// retry quota, which does not retry capacity errors and knows EC2's own throttle
// codes. The SDK's adaptive mode is not used: the pacer already slows each API down on
// its own when EC2 throttles it (package throttle), where adaptive mode slows the whole
// client on every throttled answer.
func newRetryer(opts Options) aws.Retryer {
	return retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = opts.MaxAttempts
		so.MaxBackoff = opts.MaxBackoff
		so.Retryables = append([]retry.IsErrorRetryable{noRetryOnCapacity}, so.Retryables...)
		so.Retryables = append(so.Retryables, awserrors.EC2Retryables)
		so.Throttles = append(so.Throttles, awserrors.EC2Throttles)
	})
}

// noRetryOnCapacity stops the SDK from retrying capacity errors. EC2 sends
// InsufficientInstanceCapacity with HTTP 500, which the SDK would retry like any
// server error; the same request in the same zone rarely succeeds seconds later, and
// the controller should learn at once so that it can report it or try elsewhere.
var noRetryOnCapacity = retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
	if code, _ := awserrors.ErrorCode(err); awserrors.KindOfCode(code) == awserrors.KindCapacity {
		return aws.FalseTernary
	}
	return aws.UnknownTernary
})

// changing drops what the client remembers of instances it is about to change, and
// keeps later lookups out of batches sent before the change, so that the next lookup
// sees the change.
func (c *AWSClient) changing(ids ...string) { c.batcher.Changing(ids) }
