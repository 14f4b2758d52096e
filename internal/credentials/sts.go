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

package credentials

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WebIdentityProvider serves the credentials of token-auth-aws (STS mode) without
// holding up the manager's start: a manager Runnable runs Setup (the CredentialsRequest,
// the wait for CCO's Secret, the profile file) again and again until it succeeds, and
// only then does Retrieve assume the role with the projected service account token.
// Until then Retrieve fails and Ready says why.
type WebIdentityProvider struct {
	// Client reads and writes directly from the API server.
	Client  client.Client
	Options Options
	// Region is where the SDK calls STS.
	Region string
	// Retry is how long to wait before running Setup again after it failed.
	Retry time.Duration
	// Report is told the result of every attempt.
	Report func(error)

	mu      sync.Mutex
	creds   aws.CredentialsProvider
	lastErr error
}

// Retrieve returns the role's credentials once CCO's profile is there.
func (p *WebIdentityProvider) Retrieve(ctx context.Context) (aws.Credentials, error) {
	p.mu.Lock()
	creds, err := p.creds, p.lastErr
	p.mu.Unlock()
	if creds == nil {
		if err == nil {
			err = errors.New("waiting for the Cloud Credential Operator's web identity profile")
		}
		return aws.Credentials{}, err
	}
	return creds.Retrieve(ctx)
}

// Ready returns nil once the profile is loaded, or why not.
func (p *WebIdentityProvider) Ready() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.creds != nil {
		return nil
	}
	if p.lastErr != nil {
		return p.lastErr
	}
	return errors.New("waiting for the Cloud Credential Operator's web identity profile")
}

// Start runs Setup until it succeeds, then loads the profile as the AWS SDK's
// credentials (web identity). It returns when it succeeded or ctx ended.
func (p *WebIdentityProvider) Start(ctx context.Context) error {
	for {
		err := p.setUp(ctx)
		p.mu.Lock()
		p.lastErr = err
		p.mu.Unlock()
		if p.Report != nil {
			p.Report(err)
		}
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(p.Retry):
		}
	}
}

// NeedLeaderElection is false: every replica needs credentials.
func (p *WebIdentityProvider) NeedLeaderElection() bool { return false }

func (p *WebIdentityProvider) setUp(ctx context.Context) error {
	path, err := Setup(ctx, p.Client, p.Options)
	if err != nil {
		return err
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithSharedConfigFiles([]string{path}),
		config.WithSharedCredentialsFiles([]string{path}), config.WithRegion(p.Region))
	if err != nil {
		return fmt.Errorf("loading the web identity profile %s: %w", path, err)
	}
	p.mu.Lock()
	p.creds = cfg.Credentials
	p.mu.Unlock()
	return nil
}
