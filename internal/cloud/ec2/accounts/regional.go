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
	"fmt"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/regions"
)

// RegionalClients hands out one long-lived client per region. EC2Instances may name
// any region, and each region is a separate EC2 endpoint; keeping one client per region
// lets lookups coalesce and the rate limiter work across all objects of that region.
// The credentials are loaded once and shared. Accounts reached by assuming a role
// (ForAccount) have clients of their own, per region.
type RegionalClients struct {
	cfg  aws.Config
	opts ec2.Options

	mu      sync.Mutex
	clients map[string]*ec2.AWSClient
	// accounts holds the assumed-role accounts of AWSAccounts, by name (accounts.go).
	accounts map[string]*account
	// own caches the operator's own identity (own_identity.go).
	own ownIdentity
}

// NewRegionalClients loads the AWS configuration once, with the default credential
// chain, for clients created later per region.
func NewRegionalClients(ctx context.Context, opts ec2.Options) (*RegionalClients, error) {
	var load []func(*config.LoadOptions) error
	if opts.HTTPClient != nil {
		load = append(load, config.WithHTTPClient(opts.HTTPClient))
	}
	if opts.Credentials != nil {
		load = append(load, config.WithCredentialsProvider(opts.Credentials))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("loading AWS configuration: %w", err)
	}
	return NewRegionalClientsFromConfig(cfg, opts), nil
}

// NewRegionalClientsFromConfig is NewRegionalClients for an already loaded
// configuration; tests use it with static credentials.
func NewRegionalClientsFromConfig(cfg aws.Config, opts ec2.Options) *RegionalClients {
	return &RegionalClients{cfg: cfg, opts: opts, clients: map[string]*ec2.AWSClient{}}
}

// ForRegion returns the client of a region, creating it on first use.
func (r *RegionalClients) ForRegion(_ context.Context, region string) (ec2.Client, error) {
	if err := r.checkRegion(region); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.clients[region]; ok {
		return c, nil
	}
	opts := r.opts
	opts.Region = region
	c := ec2.NewFromConfig(r.cfg, opts)
	r.clients[region] = c
	return c, nil
}

// checkRegion refuses a region that is neither known nor one the operator was told
// to accept (its own default region, and ec2.Options.ExtraRegions for a region newer
// than this build).
func (r *RegionalClients) checkRegion(region string) error {
	if region == "" {
		return fmt.Errorf("no AWS region: set spec.region, the --aws-region flag or AWS_REGION")
	}
	if regions.Known(region) || region == r.cfg.Region || slices.Contains(r.opts.ExtraRegions, region) {
		return nil
	}
	return &awserrors.Error{Kind: awserrors.KindInvalidInput, Code: awserrors.CodeUnknownRegion,
		Message: fmt.Sprintf("%q is not a region of any AWS partition this operator knows; fix spec.region (or the account's defaultRegion), or, for a region newer than this operator, start it with --extra-regions=%s", region, region)}
}
