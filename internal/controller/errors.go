package controller

import (
	"errors"
	"strings"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// reasonFor maps a classified EC2 error to the Ready condition's reason. Users,
// alerts and scripts match on these reasons, so they name the cause, not the call.
func reasonFor(err error) string {
	code := ec2.CodeOf(err)
	if reason, ok := reasonsByCode[code]; ok {
		return reason
	}
	switch ec2.KindOf(err) {
	case ec2.KindNotFound:
		return computev1alpha1.ReasonInstanceNotFound
	case ec2.KindThrottled:
		return computev1alpha1.ReasonThrottled
	case ec2.KindAuth:
		return computev1alpha1.ReasonAuthFailure
	case ec2.KindCapacity:
		switch code {
		case "InstanceLimitExceeded", "VcpuLimitExceeded", "VolumeLimitExceeded", "MaxSpotInstanceCountExceeded":
			// The account's quota, not EC2's momentary capacity: a quota increase or
			// fewer instances, not waiting, fixes it.
			return computev1alpha1.ReasonQuotaExceeded
		}
		return computev1alpha1.ReasonInsufficientCapacity
	case ec2.KindIdempotencyConflict:
		return computev1alpha1.ReasonIdempotencyConflict
	case ec2.KindInvalidInput:
		switch {
		case strings.HasPrefix(code, "InvalidAMIID"):
			return computev1alpha1.ReasonImageNotFound
		case strings.HasPrefix(code, "InvalidSubnetID"), strings.HasPrefix(code, "InvalidSubnet"):
			return computev1alpha1.ReasonSubnetNotFound
		case strings.HasPrefix(code, "InvalidGroup"):
			return computev1alpha1.ReasonSecurityGroupMissing
		default:
			return computev1alpha1.ReasonInvalidSpec
		}
	default:
		return computev1alpha1.ReasonAWSError
	}
}

// reasonsByCode names causes that the error's kind alone does not tell apart.
var reasonsByCode = map[string]string{
	ec2.CodeUnknownRegion:            computev1alpha1.ReasonRegionUnknown,
	"InvalidSnapshot.NotFound":       computev1alpha1.ReasonSnapshotNotFound,
	"InvalidVolume.NotFound":         computev1alpha1.ReasonVolumeNotFound,
	"InvalidVolume.ZoneMismatch":     computev1alpha1.ReasonVolumeZoneMismatch,
	codeVolumeCreationFailed:         computev1alpha1.ReasonVolumeNotFound,
	"InvalidAllocationID.NotFound":   computev1alpha1.ReasonAddressNotFound,
	"Resource.AlreadyAssociated":     computev1alpha1.ReasonAddressInUse,
	"AddressLimitExceeded":           computev1alpha1.ReasonAddressLimitExceeded,
	"InvalidIPAddress.InUse":         computev1alpha1.ReasonIPAddressInUse,
	"InvalidPublicIpv4Pool.NotFound": computev1alpha1.ReasonAddressNotFound,
	codeUserDataNotFound:             computev1alpha1.ReasonUserDataNotFound,
	codeTagBudget:                    computev1alpha1.ReasonTagLimitExceeded,
	codeUserDataNotGranted:           computev1alpha1.ReasonUserDataNotGranted,
	codeUserDataSourceRefused:        computev1alpha1.ReasonUserDataSourceRefused,
	codeArchitectureMismatch:         computev1alpha1.ReasonArchitectureMismatch,
	// A stop refused by stop protection (for a type change, say), or another change
	// EC2 does not permit: the user must change the spec or the protection.
	"OperationNotPermitted": computev1alpha1.ReasonUpdateFailed,
}

// messageFor is the text shown in the condition and the event: what the operator was
// doing and AWS's own code and message. Request parameters (user data in particular)
// are never part of it.
func messageFor(action string, err error) string {
	var e *ec2.Error
	if errors.As(err, &e) {
		return action + ": " + e.Code + ": " + e.Message
	}
	return action + ": " + err.Error()
}

// errorMessage is AWS's message of err, or the error's text.
func errorMessage(err error) string {
	var e *ec2.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// fail records a failed EC2 call on the object (Ready=False with the reason and AWS's
// message, and a Warning event) and returns the error, so that controller-runtime
// retries the object with exponential backoff rather than in a hot loop.
func (r *EC2InstanceReconciler) fail(s *instanceScope, action string, err error) (ctrl.Result, error) {
	if ec2.CodeOf(err) == ec2.CodeClientRateLimited {
		// The operator itself held the call back to stay within EC2's budget: not a
		// failure to report, only a later time to come back.
		wait := ec2.RetryAfterOf(err)
		s.log.V(1).Info("waiting for the EC2 API budget", "action", action, "after", wait)
		return ctrl.Result{RequeueAfter: wait + jitter(wait/10)}, nil
	}
	reason := reasonFor(err)
	msg := messageFor(action, err)
	s.notReady(reason, msg)
	r.event(s, corev1.EventTypeWarning, reason, msg)
	r.Metrics.ReconcileError(reason)
	return ctrl.Result{}, &reportedError{msg: msg, err: err}
}

// reportedError is a failure fail already reported (Ready, an event, a metric). It
// keeps the classified EC2 error, so that a pass that collects it with other
// failures reports the same reason and does not emit its event twice.
type reportedError struct {
	msg string
	err error
}

func (e *reportedError) Error() string { return e.msg }
func (e *reportedError) Unwrap() error { return e.err }
