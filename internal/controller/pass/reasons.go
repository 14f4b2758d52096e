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

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/guardrail"
)

// This file is the operator's one retry policy: what a failure is called (its Ready
// reason), whether trying again without a change can help, and which reasons need the
// user. It is keyed by the EC2 layer's error kinds and causes; AWS's error codes are
// read only in internal/cloud/ec2.

// ReasonFor maps a classified error to the Ready condition's reason. Users, alerts
// and scripts match on these reasons, so they name the cause, not the call.
func ReasonFor(err error) string {
	var own *ReasonedError
	if errors.As(err, &own) {
		return own.Reason
	}
	var refusal *guardrail.Refusal
	if errors.As(err, &refusal) {
		if refusal.Reason == guardrail.OwnershipRefused {
			return computev1alpha1.ReasonOwnedByAnother
		}
		return computev1alpha1.ReasonGuardrailViolation
	}
	if reason, ok := reasonsByCause[awserrors.CauseOf(err)]; ok {
		return reason
	}
	switch awserrors.KindOf(err) {
	case awserrors.KindNotFound:
		return computev1alpha1.ReasonInstanceNotFound
	case awserrors.KindThrottled:
		return computev1alpha1.ReasonThrottled
	case awserrors.KindAuth:
		return computev1alpha1.ReasonAuthFailure
	case awserrors.KindCapacity:
		return computev1alpha1.ReasonInsufficientCapacity
	case awserrors.KindIdempotencyConflict:
		return computev1alpha1.ReasonIdempotencyConflict
	case awserrors.KindInvalidInput:
		return computev1alpha1.ReasonInvalidSpec
	default:
		return computev1alpha1.ReasonAWSError
	}
}

// reasonsByCause names causes that the error's kind alone does not tell apart.
var reasonsByCause = map[awserrors.Cause]string{
	awserrors.CauseRegionUnknown:         computev1alpha1.ReasonRegionUnknown,
	awserrors.CauseImageNotFound:         computev1alpha1.ReasonImageNotFound,
	awserrors.CauseSubnetNotFound:        computev1alpha1.ReasonSubnetNotFound,
	awserrors.CauseSecurityGroupNotFound: computev1alpha1.ReasonSecurityGroupMissing,
	awserrors.CauseSnapshotNotFound:      computev1alpha1.ReasonSnapshotNotFound,
	awserrors.CauseVolumeNotFound:        computev1alpha1.ReasonVolumeNotFound,
	awserrors.CauseVolumeZoneMismatch:    computev1alpha1.ReasonVolumeZoneMismatch,
	awserrors.CauseAddressNotFound:       computev1alpha1.ReasonAddressNotFound,
	awserrors.CauseAddressInUse:          computev1alpha1.ReasonAddressInUse,
	awserrors.CauseAddressLimitExceeded:  computev1alpha1.ReasonAddressLimitExceeded,
	awserrors.CauseIPAddressInUse:        computev1alpha1.ReasonIPAddressInUse,
	awserrors.CauseQuotaExceeded:         computev1alpha1.ReasonQuotaExceeded,
	awserrors.CauseTagLimitExceeded:      computev1alpha1.ReasonTagLimitExceeded,
	// A stop refused by stop protection (for a type change, say), or another change
	// EC2 does not permit: the user must change the spec or the protection.
	awserrors.CauseNotPermitted: computev1alpha1.ReasonUpdateFailed,
}

// ReasonedError is a refusal the controller decides itself (a userDataFrom it may not
// read, an image the instance type cannot run), named by its own Ready reason. It
// wraps an *awserrors.Error so that its kind, and the code shown to the user, read like
// EC2's own.
type ReasonedError struct {
	Reason string
	Err    *awserrors.Error
}

func (e *ReasonedError) Error() string { return e.Err.Error() }
func (e *ReasonedError) Unwrap() error { return e.Err }

// Refusal builds the controller's own refusal: invalid input, with the reason users
// match on and a code and message shown as EC2's would be.
func Refusal(reason, operation, code, message string) error {
	return &ReasonedError{Reason: reason, Err: &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: operation, Code: code, Message: message}}
}

// RefusedAsAsked tells EC2 refusing a change as asked (it will refuse it again, so a
// stopped instance is not kept down retrying it) from failures worth retrying.
func RefusedAsAsked(err error) bool {
	switch awserrors.KindOf(err) {
	case awserrors.KindInvalidInput, awserrors.KindTerminal:
		return true
	}
	return false
}

// ReasonsNeedingTheUser are the Ready reasons that no amount of retrying fixes: the
// spec, the account or the instance must change first. kstatus (Argo CD, Flux,
// kubectl wait) reads them as failed through Stalled.
var ReasonsNeedingTheUser = map[string]bool{
	computev1alpha1.ReasonInvalidSpec:             true,
	computev1alpha1.ReasonImageNotFound:           true,
	computev1alpha1.ReasonSubnetNotFound:          true,
	computev1alpha1.ReasonSecurityGroupMissing:    true,
	computev1alpha1.ReasonAuthFailure:             true,
	computev1alpha1.ReasonOwnedByAnother:          true,
	computev1alpha1.ReasonInstanceExists:          true,
	computev1alpha1.ReasonInstanceTypeUnavailable: true,
	computev1alpha1.ReasonUpdateFailed:            true,
	computev1alpha1.ReasonInstanceNotFound:        true,
	computev1alpha1.ReasonNothingToObserve:        true,
	computev1alpha1.ReasonQuotaExceeded:           true,
	computev1alpha1.ReasonSnapshotNotFound:        true,
	computev1alpha1.ReasonVolumeZoneMismatch:      true,
	computev1alpha1.ReasonAddressNotFound:         true,
	computev1alpha1.ReasonAddressInUse:            true,
	computev1alpha1.ReasonAddressLimitExceeded:    true,
	computev1alpha1.ReasonIPAddressInUse:          true,
	computev1alpha1.ReasonUserDataNotFound:        true,
	computev1alpha1.ReasonUserDataNotGranted:      true,
	computev1alpha1.ReasonUserDataSourceRefused:   true,
	computev1alpha1.ReasonOutputsNotGranted:       true,
	computev1alpha1.ReasonOutputsTargetRefused:    true,
	computev1alpha1.ReasonGuardrailViolation:      true,
	computev1alpha1.ReasonRegionUnknown:           true,
	computev1alpha1.ReasonReplacementPaused:       true,
	computev1alpha1.ReasonTagLimitExceeded:        true,
	computev1alpha1.ReasonArchitectureMismatch:    true,
	computev1alpha1.ReasonAccountNotFound:         true,
	computev1alpha1.ReasonAccountNotAllowed:       true,
	computev1alpha1.ReasonAccountNotReady:         true,
	computev1alpha1.ReasonAccountMismatch:         true,
}

// IsProgressReason tells the Ready reasons of progress (the instance is being
// launched, started, stopped or changed) from those that report a failure.
func IsProgressReason(reason string) bool {
	switch reason {
	case computev1alpha1.ReasonProvisioning, computev1alpha1.ReasonPending, computev1alpha1.ReasonStarting,
		computev1alpha1.ReasonStopping, computev1alpha1.ReasonStopped, computev1alpha1.ReasonUpdating:
		return true
	}
	return false
}

// MessageFor is the text shown in the condition and the event: what the operator was
// doing and AWS's own code and message. Request parameters (user data in particular)
// are never part of it.
func MessageFor(action string, err error) string {
	var e *awserrors.Error
	if errors.As(err, &e) {
		return action + ": " + e.Code + ": " + e.Message
	}
	return action + ": " + err.Error()
}

// ErrorMessage is AWS's message of err, or the error's text.
func ErrorMessage(err error) string {
	var e *awserrors.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
