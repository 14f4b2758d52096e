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

package awsaccount

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/accounts"
)

// UsersIndex indexes EC2Instances by the AWSAccount they use: spec.accountRef, or the
// account a namespace's default-account annotation gave them (recorded in
// status.account). The AWSAccount reconciler counts and waits for its users with it,
// and the EC2Instance reconciler passes an account's changes to the objects that use
// it. Registered once, by IndexUsers, before either reconciler starts.
const UsersIndex = "accountName"

// NameOf is the AWSAccount an object uses, as far as the object itself says.
func NameOf(o *computev1alpha1.EC2Instance) string {
	if o.Spec.AccountRef != nil {
		return o.Spec.AccountRef.Name
	}
	return o.Status.Account
}

// IndexUsers registers UsersIndex.
func IndexUsers(ctx context.Context, indexer client.FieldIndexer) error {
	return indexer.IndexField(ctx, &computev1alpha1.EC2Instance{}, UsersIndex, func(o client.Object) []string {
		if name := NameOf(o.(*computev1alpha1.EC2Instance)); name != "" {
			return []string{name}
		}
		return nil
	})
}

// AssumedRole is the cloud layer's view of an AWSAccount.
func AssumedRole(acct *computev1alpha1.AWSAccount) accounts.AssumedRole {
	return accounts.AssumedRole{
		Name:        acct.Name,
		RoleARN:     acct.Spec.RoleARN,
		ExternalID:  acct.Spec.ExternalID,
		SessionName: acct.Spec.SessionName,
	}
}
