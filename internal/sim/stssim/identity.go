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

package stssim

import "net/url"

// getCallerIdentity answers with the account, ARN and unique id of the
// identity whose access key signed the request. For an IAM user the UserId
// is the user's AIDA... id; for an assumed role it is the role's AROA... id
// and the session name, joined by a colon.
func (s *Sim) getCallerIdentity(caller *accessKey, _ url.Values, x *xmlBuilder) *apiError {
	x.leaf("Arn", caller.arn)
	x.leaf("UserId", caller.userID)
	x.leaf("Account", caller.accountID)
	return nil
}
