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

package ec2fake

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// DescribeAddresses returns the Elastic IPs among allocationIDs that exist; unknown
// ones are left out without an error, as the real client's lookup does.
func (f *Fake) DescribeAddresses(_ context.Context, allocationIDs []string) (map[string]ec2.Address, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("DescribeAddresses", first(allocationIDs)); err != nil {
		return nil, err
	}
	out := map[string]ec2.Address{}
	for _, id := range allocationIDs {
		if a, ok := f.addresses[id]; ok {
			out[id] = cloneAddress(*a)
		}
	}
	return out, nil
}

// OwnedAddresses lists the Elastic IPs whose owner-namespace tag is namespace, in
// allocation order.
func (f *Fake) OwnedAddresses(_ context.Context, namespace string) ([]ec2.Address, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("OwnedAddresses", namespace); err != nil {
		return nil, err
	}
	out := []ec2.Address{}
	for _, id := range f.addrOrder {
		if a := f.addresses[id]; ec2.CarriesTags(a.Tags, map[string]string{ec2.TagOwnerNamespace: namespace}) {
			out = append(out, cloneAddress(*a))
		}
	}
	return out, nil
}

// AllocateAddress allocates an Elastic IP with a deterministic public address; the
// pool is ignored.
func (f *Fake) AllocateAddress(_ context.Context, _ string, tags map[string]string) (*ec2.Address, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("AllocateAddress", ""); err != nil {
		return nil, err
	}
	a := &ec2.Address{AllocationID: f.newID("eipalloc"), PublicIP: fmt.Sprintf("203.0.113.%d", len(f.addrOrder)+1),
		Tags: maps.Clone(tags)}
	f.addresses[a.AllocationID] = a
	f.addrOrder = append(f.addrOrder, a.AllocationID)
	out := cloneAddress(*a)
	return &out, nil
}

// AssociateAddress associates an Elastic IP with the instance's interface (its
// primary one when networkInterfaceID is empty). An address already associated with
// that interface keeps its association; one associated elsewhere is refused with
// Resource.AlreadyAssociated (awserrors.AddressAssociatedElsewhere).
func (f *Fake) AssociateAddress(_ context.Context, allocationID, instanceID, networkInterfaceID string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("AssociateAddress", allocationID); err != nil {
		return "", err
	}
	a, err := f.address("AssociateAddress", allocationID)
	if err != nil {
		return "", err
	}
	in, err := f.instance("AssociateAddress", instanceID)
	if err != nil {
		return "", err
	}
	nic := slices.IndexFunc(in.NetworkInterfaces, func(n ec2.NetworkInterface) bool {
		return n.ID == networkInterfaceID || networkInterfaceID == "" && n.DeviceIndex == 0
	})
	if nic < 0 {
		return "", errorf("AssociateAddress", "InvalidNetworkInterfaceID.NotFound",
			"The networkInterface ID '%s' does not exist", networkInterfaceID)
	}
	eni := &in.NetworkInterfaces[nic]
	switch {
	case a.NetworkInterfaceID == eni.ID:
		return a.AssociationID, nil
	case a.AssociationID != "":
		return "", errorf("AssociateAddress", "Resource.AlreadyAssociated",
			"resource %s is already associated with associate-id %s", a.AllocationID, a.AssociationID)
	}
	a.AssociationID, a.InstanceID, a.NetworkInterfaceID = f.newID("eipassoc"), in.ID, eni.ID
	eni.PublicIP, eni.PublicIPOwner = a.PublicIP, AccountID
	if eni.DeviceIndex == 0 {
		in.PublicIP = a.PublicIP
	}
	return a.AssociationID, nil
}

// DisassociateAddress ends an association; one already gone is not an error.
func (f *Fake) DisassociateAddress(_ context.Context, associationID, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("DisassociateAddress", associationID); err != nil {
		return err
	}
	for _, a := range f.addresses {
		if a.AssociationID == associationID && associationID != "" {
			f.disassociate(a)
		}
	}
	return nil
}

// ReleaseAddress releases an Elastic IP, ending its association first; one already
// gone is not an error.
func (f *Fake) ReleaseAddress(_ context.Context, allocationID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("ReleaseAddress", allocationID); err != nil {
		return err
	}
	if a, ok := f.addresses[allocationID]; ok {
		f.disassociate(a)
		delete(f.addresses, allocationID)
		f.addrOrder = slices.DeleteFunc(f.addrOrder, func(o string) bool { return o == allocationID })
	}
	return nil
}

// SetSecondaryPrivateIPCount gives the interface count secondary private addresses,
// keeping the first of its current ones and adding deterministic new ones.
func (f *Fake) SetSecondaryPrivateIPCount(_ context.Context, instanceID, networkInterfaceID string, _ []string, count int32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("SetSecondaryPrivateIPCount", instanceID); err != nil {
		return err
	}
	in, err := f.instance("AssignPrivateIpAddresses", instanceID)
	if err != nil {
		return err
	}
	nic := slices.IndexFunc(in.NetworkInterfaces, func(n ec2.NetworkInterface) bool { return n.ID == networkInterfaceID })
	if nic < 0 {
		return errorf("AssignPrivateIpAddresses", "InvalidNetworkInterfaceID.NotFound",
			"The networkInterface ID '%s' does not exist", networkInterfaceID)
	}
	ips := in.NetworkInterfaces[nic].PrivateIPs
	for int32(len(ips)) < count+1 {
		ips = append(ips, fmt.Sprintf("10.0.%d.%d", len(ips), len(f.order)+4))
	}
	in.NetworkInterfaces[nic].PrivateIPs = ips[:count+1]
	return nil
}

// address returns the Elastic IP or EC2's InvalidAllocationID.NotFound
// (awserrors.AddressNotFound) for operation.
func (f *Fake) address(operation, allocationID string) (*ec2.Address, error) {
	a, ok := f.addresses[allocationID]
	if !ok {
		return nil, errorf(operation, "InvalidAllocationID.NotFound", "The allocation ID '%s' does not exist", allocationID)
	}
	return a, nil
}

// disassociate ends an association on the address and on the instance's interface.
func (f *Fake) disassociate(a *ec2.Address) {
	if in, ok := f.instances[a.InstanceID]; ok {
		for i := range in.NetworkInterfaces {
			if nic := &in.NetworkInterfaces[i]; nic.ID == a.NetworkInterfaceID {
				nic.PublicIP, nic.PublicIPOwner = "", ""
				if nic.DeviceIndex == 0 {
					in.PublicIP = ""
				}
			}
		}
	}
	a.AssociationID, a.InstanceID, a.NetworkInterfaceID = "", "", ""
}
