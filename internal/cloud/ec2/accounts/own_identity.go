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
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/callmetrics"
	"github.com/ec2-operator/ec2-operator/internal/cloud/sdkhttp"
)

// OwnIdentityTTL is how long the operator's own identity, once read, answers the
// routine checks. The credentials can change under a running manager (OpenShift's
// Cloud Credential Operator rotates its Secret, an administrator points it elsewhere),
// so it is read again this often; before an instance that vanished is replaced it is
// read afresh.
const OwnIdentityTTL = 10 * time.Minute

// ownIdentity caches sts:GetCallerIdentity for the operator's own credentials.
type ownIdentity struct {
	mu      sync.Mutex
	value   Identity
	readAt  time.Time
	stsOnce sync.Once
	sts     *sts.Client
}

// OwnIdentity says which AWS account the operator's own credentials act in, from
// sts:GetCallerIdentity, read again when the last answer is older than maxAge (0 reads
// it now). Every instance launched with them records that account, so that
// credentials moved to another account make the instances AccountMismatch instead of
// "gone" (and launched again there). region is where STS is called.
func (r *RegionalClients) OwnIdentity(ctx context.Context, region string, maxAge time.Duration) (Identity, error) {
	o := &r.own
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.value.Account != "" && time.Since(o.readAt) < maxAge {
		return o.value, nil
	}
	id, err := r.readOwnIdentity(ctx, region)
	if err != nil {
		return Identity{}, err
	}
	o.value, o.readAt = id, time.Now()
	return id, nil
}

// readOwnIdentity calls sts:GetCallerIdentity with the operator's own credentials.
func (r *RegionalClients) readOwnIdentity(ctx context.Context, region string) (Identity, error) {
	o := &r.own
	o.stsOnce.Do(func() {
		stsRegion := r.cfg.Region
		if stsRegion == "" {
			stsRegion = region
		}
		o.sts = sts.NewFromConfig(r.cfg, func(so *sts.Options) {
			so.Region = stsRegion
			if r.opts.STSEndpoint != "" {
				so.BaseEndpoint = aws.String(r.opts.STSEndpoint)
			}
			if r.opts.HTTPClient != nil {
				so.HTTPClient = r.opts.HTTPClient
			}
			so.HTTPClient = sdkhttp.WholeBodies(so.HTTPClient)
			so.APIOptions = append(so.APIOptions, callmetrics.Middlewares(r.recorderFor(""), nil))
		})
	})
	out, err := o.sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return Identity{}, stsError(err)
	}
	return Identity{Account: aws.ToString(out.Account), ARN: aws.ToString(out.Arn)}, nil
}
