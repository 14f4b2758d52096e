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

package plan

import (
	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// LaunchRequest translates the spec into the EC2 launch, with every tag the instance
// will carry so that EC2 applies them atomically at launch. userData is the spec's user
// data, resolved from userDataFrom when it names a Secret or ConfigMap.
func LaunchRequest(obj *computev1alpha1.EC2Instance, cluster, token, userData string) ec2.LaunchRequest {
	spec := &obj.Spec
	req := ec2.LaunchRequest{
		ClientToken:              token,
		ImageID:                  spec.ImageID,
		InstanceType:             spec.InstanceType,
		SubnetID:                 spec.SubnetID,
		SecurityGroupIDs:         spec.SecurityGroupIDs,
		KeyName:                  spec.KeyName,
		UserData:                 userData,
		IAMInstanceProfile:       spec.IAMInstanceProfile,
		Tags:                     DesiredTags(obj, cluster),
		MetadataOptions:          DesiredMetadataOptions(spec),
		DetailedMonitoring:       spec.WantsMonitoring(),
		DisableAPITermination:    spec.WantsTerminationProtection(),
		AssociatePublicIPAddress: spec.AssociatePublicIPAddress,
		AvailabilityZone:         spec.AvailabilityZone,
		PrivateIPAddress:         spec.PrivateIPAddress,
		IPv6AddressCount:         deref(spec.IPv6AddressCount),
		IPv6Addresses:            spec.IPv6Addresses,
	}
	if spec.SecondaryPrivateIPAddressCount != nil {
		req.SecondaryPrivateIPAddressCount = *spec.SecondaryPrivateIPAddressCount
	}
	// The selectors were resolved into status before the launch record was written.
	if spec.SubnetSelector != nil {
		req.SubnetID = obj.Status.SubnetID
	}
	if spec.SecurityGroupSelector != nil {
		req.SecurityGroupIDs = obj.Status.SecurityGroupIDs
	}
	for _, v := range spec.Volumes {
		req.Volumes = append(req.Volumes, VolumeRequest(v))
	}
	if spec.ImageSelector != nil {
		// Chosen before the launch record was written.
		req.ImageID = obj.Status.ImageID
	}
	addComputeOptions(&req, spec)
	req.RootVolume = rootVolumeRequest(spec.RootVolume)
	if spec.Spot != nil {
		req.Spot = &ec2.SpotOptions{
			MaxPrice:             spec.Spot.MaxPrice,
			InterruptionBehavior: string(spec.Spot.InterruptionBehavior),
		}
	}
	return req
}

// rootVolumeRequest is the launch's root volume settings, nil to keep the image's.
func rootVolumeRequest(rv *computev1alpha1.RootVolume) *ec2.RootVolume {
	if rv == nil {
		return nil
	}
	return &ec2.RootVolume{
		Type:                string(rv.Type),
		Encrypted:           rv.Encrypted,
		KMSKeyID:            rv.KMSKeyID,
		DeleteOnTermination: rv.DeleteOnTermination,
		SizeGiB:             deref(rv.SizeGiB),
		IOPS:                deref(rv.IOPS),
		Throughput:          deref(rv.Throughput),
	}
}

// DesiredTags are the tags the instance must carry: the user's, Name and the ownership
// tags, the cluster's among them. An adopted instance keeps its own Name unless the
// spec sets one, because the operator must not rename a machine it did not create.
func DesiredTags(obj *computev1alpha1.EC2Instance, cluster string) map[string]string {
	tags := ec2.DesiredTags(obj.Spec.Tags, obj.Namespace, obj.Name, string(obj.UID), cluster)
	if obj.Spec.InstanceID != "" {
		if _, userSet := obj.Spec.Tags[ec2.TagName]; !userSet {
			delete(tags, ec2.TagName)
		}
	}
	return tags
}

// DesiredMetadataOptions returns the IMDS options with the API's defaults applied, for
// objects stored before a default existed or created without the API server's defaults.
func DesiredMetadataOptions(spec *computev1alpha1.EC2InstanceSpec) ec2.MetadataOptions {
	opts := ec2.MetadataOptions{HTTPTokens: "required", HTTPPutResponseHopLimit: 2, HTTPEndpoint: "enabled",
		InstanceMetadataTags: "disabled", HTTPProtocolIPv6: "disabled"}
	if m := spec.MetadataOptions; m != nil {
		if m.InstanceMetadataTags != "" {
			opts.InstanceMetadataTags = string(m.InstanceMetadataTags)
		}
		if m.HTTPProtocolIPv6 != "" {
			opts.HTTPProtocolIPv6 = string(m.HTTPProtocolIPv6)
		}
		if m.HTTPTokens != "" {
			opts.HTTPTokens = string(m.HTTPTokens)
		}
		if m.HTTPPutResponseHopLimit != 0 {
			opts.HTTPPutResponseHopLimit = m.HTTPPutResponseHopLimit
		}
		if m.HTTPEndpoint != "" {
			opts.HTTPEndpoint = string(m.HTTPEndpoint)
		}
	}
	return opts
}

// addComputeOptions adds the lifecycle, CPU, capacity and placement options the spec
// sets; what it leaves out gets EC2's defaults.
func addComputeOptions(req *ec2.LaunchRequest, spec *computev1alpha1.EC2InstanceSpec) {
	req.Hibernation = spec.Hibernation != nil && *spec.Hibernation
	req.StopProtection = spec.DisableAPIStop
	req.ShutdownBehavior = spec.InstanceInitiatedShutdownBehavior
	if m := spec.MaintenanceOptions; m != nil {
		req.AutoRecovery = m.AutoRecovery
	}
	if p := spec.PrivateDNSNameOptions; p != nil {
		opts := desiredDNSNameOptions(p)
		req.PrivateDNSNameOptions = &opts
	}
	if c := spec.CreditSpecification; c != nil {
		req.CreditSpecification = c.CPUCredits
	}
	if c := spec.CPUOptions; c != nil {
		req.CPUOptions = &ec2.CPUOptions{CoreCount: deref(c.CoreCount), ThreadsPerCore: deref(c.ThreadsPerCore)}
	}
	if c := spec.CapacityReservation; c != nil {
		cr := desiredCapacityReservation(c)
		req.CapacityReservation = &cr
	}
	if p := spec.Placement; p != nil {
		req.Placement = &ec2.PlacementSpec{
			GroupName: p.GroupName, PartitionNumber: deref(p.PartitionNumber), Tenancy: p.Tenancy,
			HostID: p.HostID, HostResourceGroupARN: p.HostResourceGroupARN, Affinity: p.Affinity,
		}
	}
}

// desiredDNSNameOptions applies the API's default hostname type (ip-name).
func desiredDNSNameOptions(p *computev1alpha1.PrivateDNSNameOptions) ec2.PrivateDNSNameOptions {
	out := ec2.PrivateDNSNameOptions{HostnameType: p.HostnameType, EnableARecord: p.EnableResourceNameDNSARecord, EnableAAAARecord: p.EnableResourceNameDNSAAAARecord}
	if out.HostnameType == "" {
		out.HostnameType = "ip-name"
	}
	return out
}

// desiredCapacityReservation converts the spec's preference or target.
func desiredCapacityReservation(c *computev1alpha1.CapacityReservation) ec2.CapacityReservationSpec {
	if t := c.Target; t != nil {
		return ec2.CapacityReservationSpec{ReservationID: t.CapacityReservationID, ResourceGroupARN: t.CapacityReservationResourceGroupARN}
	}
	return ec2.CapacityReservationSpec{Preference: c.Preference}
}
