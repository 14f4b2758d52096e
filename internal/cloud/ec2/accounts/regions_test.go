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

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// TestAnUnknownRegionGetsNoClient: a region in no partition is refused with a typed
// error and no client is kept for it; the operator's own region and --extra-regions
// are accepted.
func TestAnUnknownRegionGetsNoClient(t *testing.T) {
	r := NewRegionalClientsFromConfig(aws.Config{Region: "us-east-1"}, ec2.Options{ExtraRegions: []string{"xx-newplace-1"}})
	for _, region := range []string{"us-west-2", "cn-north-1", "us-gov-west-1", "xx-newplace-1"} {
		if _, err := r.ForRegion(context.Background(), region); err != nil {
			t.Errorf("%s refused: %v", region, err)
		}
	}
	for range 1000 {
		for _, region := range []string{"us-mars-1", "eu-westt-1", "us-east-10"} {
			_, err := r.ForRegion(context.Background(), region)
			var e *awserrors.Error
			if !errors.As(err, &e) || e.Kind != awserrors.KindInvalidInput || e.Code != awserrors.CodeUnknownRegion || !strings.Contains(e.Message, region) {
				t.Fatalf("%s: %v, want an UnknownRegion error naming it", region, err)
			}
			if _, err := r.ForAccount(context.Background(), AssumedRole{Name: "a", RoleARN: "arn:aws:iam::111122223333:role/x"}, region); awserrors.CodeOf(err) != awserrors.CodeUnknownRegion {
				t.Fatalf("%s in an account: %v, want UnknownRegion", region, err)
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.clients) != 4 || len(r.accounts) != 0 {
		t.Errorf("%d regional clients and %d accounts kept, want 4 and 0", len(r.clients), len(r.accounts))
	}
}
