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

package stssim_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/sim/stssim"
)

// Test fixtures: the operator's identity lives in operatorAccount and may
// assume roleA (in accountA, external ID extA).
const (
	operatorAccount = "111111111111"
	operatorKey     = "AKIAOPERATOR0000001"
	operatorSecret  = "operator-secret"
	strangerKey     = "AKIASTRANGER0000001"
	accountA        = "222222222222"
	roleA           = "arn:aws:iam::222222222222:role/ec2-operator"
	extA            = "ns-a-7f3c"
)

// newEnv returns a Sim on a fake clock with the operator user, an untrusted
// user in the same account and roleA, served over HTTP.
func newEnv(t *testing.T) (*stssim.Sim, *simtest.Clock, string) {
	t.Helper()
	clock := simtest.NewClock(simtest.Epoch)
	sim := stssim.New(stssim.Config{Seed: 7, Now: clock.Now})
	sim.AddUser(operatorAccount, operatorKey, operatorSecret)
	sim.AddNamedUser(operatorAccount, "stranger", strangerKey, "stranger-secret")
	sim.AddRole(roleA, []string{operatorKey}, extA)
	return sim, clock, simtest.Serve(t, sim)
}

// client returns a real SDK STS client signing with the given credentials, with
// the SDK's default retries.
func client(endpoint, keyID, secret, token string) *sts.Client {
	cfg := simtest.SDKConfig(stssim.DefaultRegion, keyID, secret)
	cfg.Credentials = credentials.NewStaticCredentialsProvider(keyID, secret, token)
	cfg.Retryer = nil
	return simtest.STSClient(cfg, endpoint)
}

// assume calls AssumeRole as the operator with the given external id and
// duration (nil for the default).
func assume(t *testing.T, c *sts.Client, roleARN, externalID string, seconds *int32) (*sts.AssumeRoleOutput, error) {
	t.Helper()
	in := &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String("ns-a"), DurationSeconds: seconds}
	if externalID != "" {
		in.ExternalId = aws.String(externalID)
	}
	return c.AssumeRole(simtest.Ctx(t), in)
}

// apiError extracts the service error from an SDK error.
func apiError(t *testing.T, err error) smithy.APIError {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v is not an API error", err)
	}
	return ae
}

// rawPost sends a query request whose Authorization header names keyID (the
// signature is a placeholder), for inputs the SDK refuses to send, such as a
// missing required member.
func rawPost(t *testing.T, endpoint, keyID string, form url.Values) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+keyID+"/20250601/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=00")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
