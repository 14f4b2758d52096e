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

package converge

import (
	"context"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// EC2 is what converge asks of EC2, and all it may ask: the phase reaches EC2 only
// through Phase.EC2Of, so that its tests fake these methods and nothing else. The
// kernel hands it the scope's client, which the guardrails wrap, so no call below
// escapes them.
type EC2 interface {
	// The settings' reads and in-place changes (plan's table applies them).
	plan.SettingsClient
	// Power: the desired state, and stops for changes EC2 makes only while stopped.
	StartInstance(ctx context.Context, id string) error
	StopInstance(ctx context.Context, id string) error
	HibernateInstance(ctx context.Context, id string) error
	// Extra instances carrying this object's tags are terminated.
	OwnedInstances(ctx context.Context, namespace, name string) ([]ec2.Instance, error)
	TerminateInstance(ctx context.Context, id string) (string, error)
	// Data volumes and the root volume's size.
	DescribeVolumes(ctx context.Context, ids []string) (map[string]ec2.Volume, error)
	FindVolumes(ctx context.Context, tags map[string]string) ([]ec2.Volume, error)
	GetVolumeSize(ctx context.Context, volumeID string) (int32, error)
	CreateVolume(ctx context.Context, zone, token string, req ec2.VolumeRequest, tags map[string]string) (*ec2.Volume, error)
	AttachVolume(ctx context.Context, volumeID, instanceID, device string) error
	DetachVolume(ctx context.Context, volumeID, instanceID string) error
	ModifyVolume(ctx context.Context, volumeID string, change ec2.VolumeChange) error
	DeleteVolume(ctx context.Context, volumeID string) error
	SetDeleteOnTermination(ctx context.Context, instanceID, device string, deleteOnTermination bool) error
	// The Elastic IP.
	DescribeAddresses(ctx context.Context, allocationIDs []string) (map[string]ec2.Address, error)
	OwnedAddresses(ctx context.Context, namespace string) ([]ec2.Address, error)
	AllocateAddress(ctx context.Context, pool string, tags map[string]string) (*ec2.Address, error)
	AssociateAddress(ctx context.Context, allocationID, instanceID, networkInterfaceID string) (string, error)
	DisassociateAddress(ctx context.Context, associationID, instanceID string) error
	ReleaseAddress(ctx context.Context, allocationID string) error
	// The groups securityGroupSelector matches.
	ec2.Network
	// Tags, and the ownership tags' migration.
	ec2.Tags
}

// FromScope is the kernel's Phase.EC2Of: the scope's client, for the pass's account
// and region, wrapped by the guardrails.
func FromScope(s *pass.Scope) EC2 { return s.EC2 }
