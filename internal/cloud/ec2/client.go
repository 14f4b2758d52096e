package ec2

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"golang.org/x/time/rate"
)

// Defaults for Options fields left zero.
const (
	// DefaultMaxAttempts is the SDK's attempts per call, the first one included.
	DefaultMaxAttempts = 5
	// DefaultMaxBackoff caps the delay between two attempts.
	DefaultMaxBackoff = 20 * time.Second
	// DefaultRateLimit is the client-side request rate per second, well under EC2's
	// per-account bucket refill rates so that one operator cannot starve others.
	DefaultRateLimit = 20.0
	// DefaultBatchWindow is how long a lookup waits for others to share its request.
	DefaultBatchWindow = 10 * time.Millisecond
	// DefaultMaxBatchSize is the most instance IDs one coalesced request carries.
	DefaultMaxBatchSize = 500
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
	// Endpoint overrides the EC2 endpoint URL. Empty keeps the SDK default, which also
	// honours AWS_ENDPOINT_URL_EC2 and AWS_ENDPOINT_URL.
	Endpoint string
	// MaxAttempts bounds the SDK's attempts per call, the first one included.
	MaxAttempts int
	// MaxBackoff caps the delay between two attempts.
	MaxBackoff time.Duration
	// RateLimit is the client-side limit in requests per second over all calls,
	// retries included. A negative value disables the limiter.
	RateLimit float64
	// Burst is the limiter's bucket size; zero means the per-second rate, at least 1.
	Burst int
	// BatchWindow is how long GetInstance waits for more lookups to share one
	// DescribeInstances call.
	BatchWindow time.Duration
	// MaxBatchSize sends a batch early once it holds this many distinct IDs.
	MaxBatchSize int
	// BatchTimeout bounds one coalesced DescribeInstances batch.
	BatchTimeout time.Duration
	// PageSize is the MaxResults of filtered DescribeInstances queries (5 to 1000).
	PageSize int32
	// ReadAheadTTL, when positive, lets a batched DescribeInstances also refresh the
	// other instances callers have asked about, and serves settled instances from
	// answers at most this old (see readAhead). The manager sets it to half the resync
	// period; zero describes every lookup.
	ReadAheadTTL time.Duration
	// Recorder receives one record per SDK attempt; nil records nothing.
	Recorder CallRecorder
	// HTTPClient, when set, replaces the SDK's HTTP client.
	HTTPClient aws.HTTPClient
	// Credentials, when set, replaces the default credential chain (environment,
	// shared files, web identity, IMDS).
	Credentials aws.CredentialsProvider
}

func (o Options) withDefaults() Options {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.RateLimit == 0 {
		o.RateLimit = DefaultRateLimit
	}
	if o.Burst <= 0 {
		o.Burst = int(math.Max(1, math.Ceil(o.RateLimit)))
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
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	o.PageSize = min(max(o.PageSize, 5), DefaultPageSize)
	if o.Recorder == nil {
		o.Recorder = NopRecorder{}
	}
	return o
}

// AWSClient implements Client with the AWS SDK for Go v2.
type AWSClient struct {
	api      *awsec2.Client
	region   string
	batcher  *describeBatcher
	pageSize int32

	// rootDevices caches the root device name of each AMI: it never changes for a
	// given image ID, and RunInstance needs it on every launch with a root volume.
	rootDevicesMu sync.Mutex
	rootDevices   map[string]string
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
	var limiter *rate.Limiter
	if opts.RateLimit > 0 {
		limiter = rate.NewLimiter(rate.Limit(opts.RateLimit), opts.Burst)
	}
	api := awsec2.NewFromConfig(cfg, func(o *awsec2.Options) {
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
		if opts.HTTPClient != nil {
			o.HTTPClient = opts.HTTPClient
		}
		// Adaptive mode adds a client-side rate that shrinks when EC2 throttles, on
		// top of the standard exponential backoff with jitter.
		o.Retryer = retry.NewAdaptiveMode(func(ao *retry.AdaptiveModeOptions) {
			ao.StandardOptions = append(ao.StandardOptions, func(so *retry.StandardOptions) {
				so.MaxAttempts = opts.MaxAttempts
				so.MaxBackoff = opts.MaxBackoff
				so.Retryables = append([]retry.IsErrorRetryable{noRetryOnCapacity}, so.Retryables...)
			})
		})
		o.APIOptions = append(o.APIOptions, addCallMiddlewares(opts.Recorder, limiter))
	})
	c := &AWSClient{
		api:         api,
		region:      cfg.Region,
		rootDevices: map[string]string{},
		pageSize:    opts.PageSize,
	}
	c.batcher = newDescribeBatcher(api, opts.BatchWindow, opts.MaxBatchSize, opts.BatchTimeout, opts.PageSize)
	if opts.ReadAheadTTL > 0 {
		c.batcher.ahead = newReadAhead(opts.ReadAheadTTL, time.Now)
	}
	return c
}

// noRetryOnCapacity stops the SDK from retrying capacity errors. EC2 sends
// InsufficientInstanceCapacity with HTTP 500, which the SDK would retry like any
// server error; the same request in the same zone rarely succeeds seconds later, and
// the controller should learn at once so that it can report it or try elsewhere.
var noRetryOnCapacity = retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
	if code, _ := errorCode(err); kindOfCode(code) == KindCapacity {
		return aws.FalseTernary
	}
	return aws.UnknownTernary
})

// changing drops what the client remembers of instances it is about to change, and
// keeps later lookups out of batches sent before the change, so that the next lookup
// sees the change.
func (c *AWSClient) changing(ids ...string) { c.batcher.changing(ids) }

// Region returns the AWS region the client talks to.
func (c *AWSClient) Region() string { return c.region }

// API returns the underlying SDK client for calls the Client interface does not
// cover. Calls through it are rate limited and recorded like all others.
func (c *AWSClient) API() *awsec2.Client { return c.api }
