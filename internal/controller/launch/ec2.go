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

package launch

import (
	"context"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// EC2 is what the launch phase asks of EC2, and all it may ask: the phase reaches EC2
// only through Phase.EC2Of, so that its tests fake these methods and nothing else, and
// a reader sees here which calls a launch can make. The kernel hands it the scope's
// client, which the guardrails wrap, so no call below escapes them.
type EC2 interface {
	// Launching, finding what a lost answer launched, and the budget's turns.
	RunInstance(ctx context.Context, req ec2.LaunchRequest) (*ec2.Instance, error)
	RunInstances(ctx context.Context, req ec2.LaunchRequest) ([]ec2.Instance, error)
	GetInstance(ctx context.Context, id string) (*ec2.Instance, error)
	FindInstances(ctx context.Context, filter ec2.InstanceFilter) ([]ec2.Instance, error)
	OwnedInstances(ctx context.Context, namespace, name string) ([]ec2.Instance, error)
	ec2.FleetHints
	// Replacing a Spot instance cancels its request first.
	CancelSpotRequest(ctx context.Context, requestID string) error
	// Late-initialization reads the attributes DescribeInstances does not return.
	GetInstanceAttributes(ctx context.Context, id string) (*ec2.InstanceAttributes, error)
	// The image, subnet and groups the spec selects, checked against the type.
	ec2.Images
	ec2.Network
	// Ownership tags on adoption and take-over.
	ec2.Tags
}

// FromScope is the kernel's Phase.EC2Of: the scope's client, for the pass's account
// and region, wrapped by the guardrails.
func FromScope(s *pass.Scope) EC2 { return s.EC2 }
