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
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/callmetrics"
	"github.com/ec2-operator/ec2-operator/internal/cloud/sdkhttp"
)

// AssumedRole is an AWS account the operator acts in by assuming an IAM role with its
// own identity. It is what an AWSAccount resource says, without Kubernetes.
type AssumedRole struct {
	// Name labels the account's clients and metrics; it is the AWSAccount's name.
	Name string
	// RoleARN is the role to assume.
	RoleARN string
	// ExternalID, when set, is passed to AssumeRole for the trust policy's
	// sts:ExternalId condition.
	ExternalID string
	// SessionName is the role session name CloudTrail records; empty means
	// "ec2-operator-" + Name.
	SessionName string
}

// Identity is what sts:GetCallerIdentity says about a set of credentials.
type Identity struct {
	// Account is the 12-digit account ID.
	Account string
	// ARN is the caller's ARN; for an assumed role, the assumed-role session ARN.
	ARN string
}

// Assumed-role sessions last an hour: the longest every role allows (a role's
// maximum session is at least an hour) and the cap AWS puts on role chaining, which
// applies when the operator itself runs with an assumed role (IRSA, token-auth-aws).
// They are renewed well before they end, so that no call is made with credentials
// about to expire.
const (
	assumedRoleDuration     = time.Hour
	assumedRoleRenewWindow  = 10 * time.Minute
	assumedRoleRenewJitter  = 0.25
	defaultSessionPrefix    = "ec2-operator-"
	maxRoleSessionNameChars = 64
)

// account holds what the operator keeps per assumed role: the role's credentials,
// shared by its regional clients, and those clients.
type account struct {
	role    AssumedRole
	creds   *aws.CredentialsCache
	sts     *sts.Client
	clients map[string]*ec2.AWSClient
}

// sessionName is the role session name for role.
func (r AssumedRole) sessionName() string {
	if r.SessionName != "" {
		return r.SessionName
	}
	n := defaultSessionPrefix + r.Name
	if len(n) > maxRoleSessionNameChars {
		n = n[:maxRoleSessionNameChars]
	}
	return n
}

// ForAccount returns the client of a region in the account role acts in, creating it
// (and the account's credentials) on first use. The credentials come from
// sts:AssumeRole with the operator's own identity, are cached and renewed before
// they expire, and are dropped at once when EC2 answers that they expired. A changed
// role (another ARN, external ID or session name under the same name) gets new
// credentials and new clients.
func (r *RegionalClients) ForAccount(ctx context.Context, role AssumedRole, region string) (ec2.Client, error) {
	if role.RoleARN == "" {
		// An AWSAccount without a role stands for the operator's own credentials.
		return r.ForRegion(ctx, region)
	}
	if region == "" {
		return nil, fmt.Errorf("no AWS region: set spec.region, the AWSAccount's defaultRegion, the --aws-region flag or AWS_REGION")
	}
	if err := r.checkRegion(region); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.accountLocked(role, region)
	if c, ok := a.clients[region]; ok {
		return c, nil
	}
	opts := r.opts
	opts.Region = region
	opts.Credentials = nil
	opts.Recorder = r.recorderFor(role.Name)
	opts.CredentialsExpired = a.creds.Invalidate
	cfg := r.cfg.Copy()
	cfg.Credentials = a.creds
	c := ec2.NewFromConfig(cfg, opts)
	a.clients[region] = c
	return c, nil
}

// VerifyAccount assumes role afresh and asks sts:GetCallerIdentity who the new
// credentials are. It is how an AWSAccount becomes Ready, and, run again every hour,
// how a trust policy changed in AWS shows in its status: a cached session would still
// work for up to an hour after the role stopped trusting the operator. The account's
// EC2 clients use the new session from then on. region is where STS is called when
// the account has no STS client yet.
func (r *RegionalClients) VerifyAccount(ctx context.Context, role AssumedRole, region string) (Identity, error) {
	if role.RoleARN == "" {
		return r.OwnIdentity(ctx, region, 0)
	}
	if err := r.checkRegion(region); err != nil {
		return Identity{}, err
	}
	r.mu.Lock()
	a := r.accountLocked(role, region)
	r.mu.Unlock()
	a.creds.Invalidate()
	out, err := a.sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}, func(o *sts.Options) {
		o.Credentials = a.creds
	})
	if err != nil {
		return Identity{}, stsError(err)
	}
	return Identity{Account: aws.ToString(out.Account), ARN: aws.ToString(out.Arn)}, nil
}

// ForgetAccount drops the clients and credentials of an account that is gone.
func (r *RegionalClients) ForgetAccount(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.accounts, name)
}

// accountLocked returns role's account, replacing an older one of the same name whose
// role differs. The caller holds r.mu.
func (r *RegionalClients) accountLocked(role AssumedRole, region string) *account {
	if a, ok := r.accounts[role.Name]; ok && a.role == role {
		return a
	}
	stsRegion := r.cfg.Region
	if stsRegion == "" {
		stsRegion = region
	}
	stsClient := sts.NewFromConfig(r.cfg, func(o *sts.Options) {
		o.Region = stsRegion
		if r.opts.STSEndpoint != "" {
			o.BaseEndpoint = aws.String(r.opts.STSEndpoint)
		}
		if r.opts.HTTPClient != nil {
			o.HTTPClient = r.opts.HTTPClient
		}
		o.HTTPClient = sdkhttp.WholeBodies(o.HTTPClient)
		o.APIOptions = append(o.APIOptions, callmetrics.Middlewares(r.recorderFor(role.Name), nil))
	})
	provider := stscreds.NewAssumeRoleProvider(stsClient, role.RoleARN, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = role.sessionName()
		o.Duration = assumedRoleDuration
		if role.ExternalID != "" {
			o.ExternalID = aws.String(role.ExternalID)
		}
	})
	a := &account{
		role: role,
		creds: aws.NewCredentialsCache(provider, func(o *aws.CredentialsCacheOptions) {
			o.ExpiryWindow = assumedRoleRenewWindow
			o.ExpiryWindowJitterFrac = assumedRoleRenewJitter
		}),
		sts:     stsClient,
		clients: map[string]*ec2.AWSClient{},
	}
	if r.accounts == nil {
		r.accounts = map[string]*account{}
	}
	r.accounts[role.Name] = a
	return a
}

// recorderFor labels the calls made in an account, when the recorder can.
func (r *RegionalClients) recorderFor(accountName string) callmetrics.CallRecorder {
	if ar, ok := r.opts.Recorder.(AccountRecorder); ok {
		return ar.ForAccount(accountName)
	}
	if r.opts.Recorder == nil {
		return callmetrics.NopRecorder{}
	}
	return r.opts.Recorder
}

// AccountRecorder is a callmetrics.CallRecorder that can label the calls made in an assumed-role
// account with that account's name.
type AccountRecorder interface {
	callmetrics.CallRecorder
	// ForAccount returns the recorder of the calls made in the named account.
	ForAccount(account string) callmetrics.CallRecorder
}

// STSError is a failed sts:AssumeRole or sts:GetCallerIdentity, with AWS's code and
// message when AWS answered.
type STSError struct {
	// Code is AWS's error code (AccessDenied, InvalidClientTokenId...) or one of the
	// synthetic Code* constants.
	Code string
	// Message is AWS's message, or the error's text when AWS did not answer.
	Message string
	err     error
}

// Error gives the code and AWS's message, without the SDK's request details.
func (e *STSError) Error() string {
	if e.Code == "" {
		return e.Message
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the SDK's error.
func (e *STSError) Unwrap() error { return e.err }

// stsError turns an SDK error into an STSError. The assume-role provider wraps STS's
// answer, so the API error is looked for anywhere in the chain.
func stsError(err error) error {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode() != "" {
		return &STSError{Code: apiErr.ErrorCode(), Message: apiErr.ErrorMessage(), err: err}
	}
	code, msg := awserrors.ErrorCode(err)
	return &STSError{Code: code, Message: msg, err: err}
}
