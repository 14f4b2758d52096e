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

package awserrors

import (
	"errors"
	"strings"
)

// Cause names what went wrong in the terms a user acts on, where an error's Kind alone
// does not tell causes apart: "the image does not exist" and "the subnet does not
// exist" are both invalid input, but a user fixes them in different fields. The
// controller maps causes to its Ready reasons; AWS's error codes are read only here.
type Cause int

const (
	// CauseNone is an error whose Kind says all there is to say.
	CauseNone Cause = iota
	// CauseHeldBack is the client's own pacing (CodeClientRateLimited): nothing was
	// sent, and RetryAfter says when the call may go.
	CauseHeldBack
	// CauseRegionUnknown is a region no AWS partition lists (CodeUnknownRegion).
	CauseRegionUnknown
	// CauseImageNotFound is an AMI that does not exist or is not visible (InvalidAMIID.*).
	CauseImageNotFound
	// CauseSubnetNotFound is a subnet that does not exist (InvalidSubnetID.*, InvalidSubnet*).
	CauseSubnetNotFound
	// CauseSecurityGroupNotFound is a security group that does not exist (InvalidGroup*).
	CauseSecurityGroupNotFound
	// CauseSnapshotNotFound is an EBS snapshot that does not exist.
	CauseSnapshotNotFound
	// CauseVolumeNotFound is an EBS volume that does not exist.
	CauseVolumeNotFound
	// CauseVolumeZoneMismatch is a volume in another Availability Zone than the instance.
	CauseVolumeZoneMismatch
	// CauseAddressNotFound is an Elastic IP allocation or public IPv4 pool that does
	// not exist.
	CauseAddressNotFound
	// CauseAddressInUse is an Elastic IP associated with another instance or interface.
	CauseAddressInUse
	// CauseAddressLimitExceeded is the account's Elastic IP quota.
	CauseAddressLimitExceeded
	// CauseIPAddressInUse is a private IP address another interface holds.
	CauseIPAddressInUse
	// CauseQuotaExceeded is an account quota (instances, vCPUs, volumes, Spot
	// Instances): a quota increase or fewer resources fixes it, not waiting.
	CauseQuotaExceeded
	// CauseNotPermitted is a change EC2 does not permit as the resource is configured
	// (OperationNotPermitted: stop or termination protection, among others).
	CauseNotPermitted
	// CauseTagLimitExceeded is a resource that would carry more than 50 tags.
	CauseTagLimitExceeded
)

// causesByCode are the causes of exact AWS error codes.
var causesByCode = map[string]Cause{
	CodeClientRateLimited:            CauseHeldBack,
	CodeUnknownRegion:                CauseRegionUnknown,
	"InvalidSnapshot.NotFound":       CauseSnapshotNotFound,
	"InvalidVolume.NotFound":         CauseVolumeNotFound,
	"InvalidVolume.ZoneMismatch":     CauseVolumeZoneMismatch,
	"InvalidAllocationID.NotFound":   CauseAddressNotFound,
	"InvalidPublicIpv4Pool.NotFound": CauseAddressNotFound,
	"Resource.AlreadyAssociated":     CauseAddressInUse,
	"AddressLimitExceeded":           CauseAddressLimitExceeded,
	"InvalidIPAddress.InUse":         CauseIPAddressInUse,
	"OperationNotPermitted":          CauseNotPermitted,
	"TagLimitExceeded":               CauseTagLimitExceeded,
}

// quotaCodes are the capacity errors that are the account's quota, not EC2's
// momentary capacity.
var quotaCodes = map[string]bool{
	"InstanceLimitExceeded": true, "VcpuLimitExceeded": true, "VolumeLimitExceeded": true, "MaxSpotInstanceCountExceeded": true,
}

// causesByPrefix are the causes of families of invalid-input codes, tried in order
// after the exact codes.
var causesByPrefix = []struct {
	prefix string
	cause  Cause
}{
	{"InvalidAMIID", CauseImageNotFound},
	{"InvalidSubnet", CauseSubnetNotFound},
	{"InvalidGroup", CauseSecurityGroupNotFound},
}

// CauseOf returns the cause of err, or CauseNone when err is not a classified EC2
// error or its code names no cause of its own.
func CauseOf(err error) Cause {
	var e *Error
	if !errors.As(err, &e) {
		return CauseNone
	}
	if c, ok := causesByCode[e.Code]; ok {
		return c
	}
	if e.Kind == KindCapacity && quotaCodes[e.Code] {
		return CauseQuotaExceeded
	}
	if e.Kind != KindInvalidInput {
		return CauseNone
	}
	for _, p := range causesByPrefix {
		if strings.HasPrefix(e.Code, p.prefix) {
			return p.cause
		}
	}
	return CauseNone
}

// HeldBack reports whether the call was never sent because the client's own budget
// held it back: not a failure, only a later time (RetryAfterOf) to try again.
func HeldBack(err error) bool { return CauseOf(err) == CauseHeldBack }
