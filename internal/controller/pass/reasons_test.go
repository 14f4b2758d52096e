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

package pass

import (
	"errors"
	"testing"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

func TestReasonForMapsEachErrorKindToAReadyReason(t *testing.T) {
	testCases := []struct {
		err  error
		want string
	}{
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidAMIID.NotFound"}, computev1alpha1.ReasonImageNotFound},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidAMIID.Malformed"}, computev1alpha1.ReasonImageNotFound},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidSubnetID.NotFound"}, computev1alpha1.ReasonSubnetNotFound},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidGroup.NotFound"}, computev1alpha1.ReasonSecurityGroupMissing},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidParameterValue"}, computev1alpha1.ReasonInvalidSpec},
		{&awserrors.Error{Kind: awserrors.KindThrottled, Code: "RequestLimitExceeded"}, computev1alpha1.ReasonThrottled},
		{&awserrors.Error{Kind: awserrors.KindAuth, Code: "AuthFailure"}, computev1alpha1.ReasonAuthFailure},
		{&awserrors.Error{Kind: awserrors.KindCapacity, Code: "InsufficientInstanceCapacity"}, computev1alpha1.ReasonInsufficientCapacity},
		{&awserrors.Error{Kind: awserrors.KindIdempotencyConflict, Code: "IdempotentParameterMismatch"}, computev1alpha1.ReasonIdempotencyConflict},
		{&awserrors.Error{Kind: awserrors.KindNotFound, Code: "InvalidInstanceID.NotFound"}, computev1alpha1.ReasonInstanceNotFound},
		// Stop protection refusing a stop a change needs: the user must act.
		{&awserrors.Error{Kind: awserrors.KindTerminal, Code: "OperationNotPermitted"}, computev1alpha1.ReasonUpdateFailed},
		{&awserrors.Error{Kind: awserrors.KindTerminal, Code: "UnsupportedOperation"}, computev1alpha1.ReasonAWSError},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidSnapshot.NotFound"}, computev1alpha1.ReasonSnapshotNotFound},
		{&awserrors.Error{Kind: awserrors.KindCapacity, Code: "AddressLimitExceeded"}, computev1alpha1.ReasonAddressLimitExceeded},
		{&awserrors.Error{Kind: awserrors.KindCapacity, Code: "ReservationCapacityExceeded"}, computev1alpha1.ReasonInsufficientCapacity},
		{errors.New("connection reset"), computev1alpha1.ReasonAWSError},
	}
	for _, tc := range testCases {
		if got := ReasonFor(tc.err); got != tc.want {
			t.Errorf("ReasonFor(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}
