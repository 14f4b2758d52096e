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

package controller

import (
	"context"
	"fmt"
	"time"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/accounts"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// An instance lives in the AWS account it was launched in. With an AWSAccount the
// account is the one its role was verified to act in; with the operator's own
// credentials it is the one sts:GetCallerIdentity names. Either way it is recorded in
// status.accountId, and an object whose credentials now act in another account is
// refused (AccountMismatch) and its instance left alone: in the other account it
// would look gone, and the operator would launch it again there, leaving the real one
// running untracked.

// ownAccount is the account the operator's own credentials act in, read again when
// the last answer is older than maxAge.
func (r *EC2InstanceReconciler) ownAccount(ctx context.Context, s *pass.Scope, maxAge time.Duration) (string, error) {
	region := s.Region
	if region == "" {
		region = r.regionOf(s.Obj, s.Account)
	}
	id, err := r.EC2.OwnIdentity(ctx, region, maxAge)
	if err != nil {
		msg := "reading which AWS account the operator's credentials act in (sts:GetCallerIdentity): " + err.Error() +
			"; nothing is launched or replaced until it is known"
		s.NotReady(computev1alpha1.ReasonAWSError, msg)
		return "", &identityError{msg: msg, err: err}
	}
	return id.Account, nil
}

// checkOwnAccount refuses an object of the operator's own credentials (without a
// default account) whose instance was recorded in another account than the one the
// credentials act in now. The routine check is answered from an identity up to
// accounts.OwnIdentityTTL old; instanceMissing reads it afresh before replacing anything.
func (r *EC2InstanceReconciler) checkOwnAccount(ctx context.Context, s *pass.Scope, maxAge time.Duration) error {
	st := &s.Obj.Status
	if st.AccountID == "" || r.launchPhase().NothingLaunched(s) {
		// Nothing recorded yet: the launch records it, and an instance launched before
		// accounts were recorded gets it once it is seen (pinOwnAccount).
		return nil
	}
	current, err := r.ownAccount(ctx, s, maxAge)
	if err != nil {
		return err
	}
	if current == st.AccountID {
		return nil
	}
	return r.refuseAccount(s, computev1alpha1.ReasonAccountMismatch, fmt.Sprintf(
		"the instance %s lives in AWS account %s, but the operator's credentials now act in account %s; "+
			"it is left alone (not replaced) until they act in account %s again", st.InstanceID, st.AccountID, current, st.AccountID))
}

// pinOwnAccount records the account of the operator's own credentials on an object
// that has none recorded: before its launch, or once its instance was found with these
// credentials (an instance launched before accounts were recorded).
func (r *EC2InstanceReconciler) pinOwnAccount(ctx context.Context, s *pass.Scope) error {
	if s.Account != nil || s.Obj.Status.AccountID != "" {
		return nil
	}
	current, err := r.ownAccount(ctx, s, accounts.OwnIdentityTTL)
	if err != nil {
		return err
	}
	s.Obj.Status.AccountID = current
	return nil
}

// identityError is a failed sts:GetCallerIdentity, already shown on Ready: the pass
// ends with it, for controller-runtime's backoff.
type identityError struct {
	msg string
	err error
}

func (e *identityError) Error() string { return e.msg }
func (e *identityError) Unwrap() error { return e.err }
