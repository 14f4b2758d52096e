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

package observe

import (
	"context"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// EC2 is what Observe asks of EC2: reads only, which is the policy's promise (no call
// that changes anything in AWS), so the type says it. The phase reaches EC2 only
// through Phase.EC2Of.
type EC2 interface {
	GetInstance(ctx context.Context, id string) (*ec2.Instance, error)
	DescribeAddresses(ctx context.Context, allocationIDs []string) (map[string]ec2.Address, error)
	// ChangedElsewhere marks the instance's description stale in the read-ahead.
	ChangedElsewhere(ids ...string)
}

// FromScope is the kernel's Phase.EC2Of: the scope's client, for the pass's account
// and region, wrapped by the guardrails.
func FromScope(s *pass.Scope) EC2 { return s.EC2 }
