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

package guardrail

import (
	"context"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// The changes below are ones no guardrail field covers beyond where they are made:
// each is refused in a region the account does not allow (see Decisions).

func (c *Client) StartInstance(ctx context.Context, id string) error {
	if err := c.inRegion("StartInstance"); err != nil {
		return err
	}
	return c.inner.StartInstance(ctx, id)
}

func (c *Client) ModifyTerminationProtection(ctx context.Context, id string, enabled bool) error {
	if err := c.inRegion("ModifyTerminationProtection"); err != nil {
		return err
	}
	return c.inner.ModifyTerminationProtection(ctx, id, enabled)
}

func (c *Client) ModifyUserData(ctx context.Context, id, userData string) error {
	if err := c.inRegion("ModifyUserData"); err != nil {
		return err
	}
	return c.inner.ModifyUserData(ctx, id, userData)
}

func (c *Client) ModifyMetadataOptions(ctx context.Context, id string, opts ec2.MetadataOptions) error {
	if err := c.inRegion("ModifyMetadataOptions"); err != nil {
		return err
	}
	return c.inner.ModifyMetadataOptions(ctx, id, opts)
}

func (c *Client) SetDetailedMonitoring(ctx context.Context, id string, enabled bool) error {
	if err := c.inRegion("SetDetailedMonitoring"); err != nil {
		return err
	}
	return c.inner.SetDetailedMonitoring(ctx, id, enabled)
}

func (c *Client) SetSourceDestCheck(ctx context.Context, instanceID string, enabled bool) error {
	if err := c.inRegion("SetSourceDestCheck"); err != nil {
		return err
	}
	return c.inner.SetSourceDestCheck(ctx, instanceID, enabled)
}

func (c *Client) SetStopProtection(ctx context.Context, id string, enabled bool) error {
	if err := c.inRegion("SetStopProtection"); err != nil {
		return err
	}
	return c.inner.SetStopProtection(ctx, id, enabled)
}

func (c *Client) SetShutdownBehavior(ctx context.Context, id, behavior string) error {
	if err := c.inRegion("SetShutdownBehavior"); err != nil {
		return err
	}
	return c.inner.SetShutdownBehavior(ctx, id, behavior)
}

func (c *Client) SetAutoRecovery(ctx context.Context, id, autoRecovery string) error {
	if err := c.inRegion("SetAutoRecovery"); err != nil {
		return err
	}
	return c.inner.SetAutoRecovery(ctx, id, autoRecovery)
}

func (c *Client) SetPrivateDNSNameOptions(ctx context.Context, id string, opts ec2.PrivateDNSNameOptions) error {
	if err := c.inRegion("SetPrivateDNSNameOptions"); err != nil {
		return err
	}
	return c.inner.SetPrivateDNSNameOptions(ctx, id, opts)
}

func (c *Client) SetCPUOptions(ctx context.Context, id string, o ec2.CPUOptions) error {
	if err := c.inRegion("SetCPUOptions"); err != nil {
		return err
	}
	return c.inner.SetCPUOptions(ctx, id, o)
}

func (c *Client) SetCreditSpecification(ctx context.Context, id, credits string) error {
	if err := c.inRegion("SetCreditSpecification"); err != nil {
		return err
	}
	return c.inner.SetCreditSpecification(ctx, id, credits)
}

func (c *Client) AttachVolume(ctx context.Context, volumeID, instanceID, device string) error {
	if err := c.inRegion("AttachVolume"); err != nil {
		return err
	}
	if err := c.checkTagged(ctx, "AttachVolume", []string{volumeID}); err != nil {
		return err
	}
	return c.inner.AttachVolume(ctx, volumeID, instanceID, device)
}

func (c *Client) SetDeleteOnTermination(ctx context.Context, instanceID, device string, deleteOnTermination bool) error {
	if err := c.inRegion("SetDeleteOnTermination"); err != nil {
		return err
	}
	return c.inner.SetDeleteOnTermination(ctx, instanceID, device, deleteOnTermination)
}

func (c *Client) AssociateAddress(ctx context.Context, allocationID, instanceID, networkInterfaceID string) (string, error) {
	if err := c.inRegion("AssociateAddress"); err != nil {
		return "", err
	}
	if err := c.checkAddress(ctx, allocationID); err != nil {
		return "", err
	}
	return c.inner.AssociateAddress(ctx, allocationID, instanceID, networkInterfaceID)
}

func (c *Client) SetSecondaryPrivateIPCount(ctx context.Context, instanceID, networkInterfaceID string, secondaries []string, count int32) error {
	if err := c.inRegion("SetSecondaryPrivateIPCount"); err != nil {
		return err
	}
	return c.inner.SetSecondaryPrivateIPCount(ctx, instanceID, networkInterfaceID, secondaries, count)
}

func (c *Client) CreateTags(ctx context.Context, resourceIDs []string, tags map[string]string) error {
	if err := c.inRegion("CreateTags"); err != nil {
		return err
	}
	if err := c.checkTagged(ctx, "CreateTags", resourceIDs); err != nil {
		return err
	}
	return c.inner.CreateTags(ctx, resourceIDs, tags)
}
