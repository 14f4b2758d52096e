package sqssim

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// env is a Sim behind an httptest server with a real SDK client.
type env struct {
	sim    *Sim
	clock  *simtest.Clock
	client *sqs.Client
	url    string // the test queue's URL
}

// newEnv starts a Sim with a fake clock and one queue named "events", and a
// client with fast retries so the 503 test stays quick.
func newEnv(t *testing.T) *env {
	t.Helper()
	clock := simtest.NewClock(simtest.Epoch)
	sim := New(Config{Now: clock.Now, Seed: 1})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	cfg := aws.Config{
		Region:      DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) {
					return 5 * time.Millisecond, nil
				})
			})
		},
	}
	client := sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	return &env{sim: sim, clock: clock, client: client, url: sim.CreateQueue("events")}
}

// ctx returns a test-scoped context with a generous deadline.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// receive calls ReceiveMessage asking for every system attribute.
func (e *env) receive(t *testing.T, max, wait, visibility int32) []types.Message {
	t.Helper()
	in := &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(e.url),
		MaxNumberOfMessages:         max,
		WaitTimeSeconds:             wait,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
	}
	if visibility >= 0 {
		in.VisibilityTimeout = visibility
	}
	out, err := e.client.ReceiveMessage(ctx(t), in)
	if err != nil {
		t.Fatalf("ReceiveMessage: %v", err)
	}
	return out.Messages
}

// errCode extracts the SDK's error code, or "".
func errCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}
