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

package deletion

import (
	"context"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// EC2 is what the deletion phase asks of EC2, and all it may ask: the phase reaches EC2
// only through Phase.EC2Of. The kernel hands it the scope's client, which the
// guardrails wrap.
type EC2 interface {
	// The instance, its protection and its Spot request.
	GetInstance(ctx context.Context, id string) (*ec2.Instance, error)
	ModifyTerminationProtection(ctx context.Context, id string, enabled bool) error
	TerminateInstance(ctx context.Context, id string) (string, error)
	CancelSpotRequest(ctx context.Context, requestID string) error
	// Volumes that go with the instance, or stay behind released.
	DescribeVolumes(ctx context.Context, ids []string) (map[string]ec2.Volume, error)
	FindVolumes(ctx context.Context, tags map[string]string) ([]ec2.Volume, error)
	SetDeleteOnTermination(ctx context.Context, instanceID, device string, deleteOnTermination bool) error
	// The Elastic IP.
	DescribeAddresses(ctx context.Context, allocationIDs []string) (map[string]ec2.Address, error)
	DisassociateAddress(ctx context.Context, associationID, instanceID string) error
	ReleaseAddress(ctx context.Context, allocationID string) error
	// Releasing marks what stays and drops the ownership tags.
	ec2.Tags
}

// FromScope is the kernel's Phase.EC2Of: the scope's client, for the pass's account
// and region, wrapped by the guardrails.
func FromScope(s *pass.Scope) EC2 { return s.EC2 }
