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

// Package credentials obtains AWS credentials on OpenShift clusters whose Cloud
// Credential Operator (CCO) runs in STS mode ("token-auth-aws").
//
// When the operator is installed through OLM with a role ARN (the console asks for it
// because the CSV sets features.operators.openshift.io/token-auth-aws), OLM puts that
// ARN into the ROLEARN environment variable. Setup then:
//
//  1. creates or updates a cloudcredential.openshift.io/v1 CredentialsRequest that
//     lists the IAM permissions the operator needs (Policy) and carries the role ARN;
//  2. waits for the Secret that CCO writes in the operator's namespace, whose
//     "credentials" key is an AWS shared-config profile with role_arn and
//     web_identity_token_file (the projected service account token with audience
//     "openshift" that the Deployment mounts);
//  3. writes that profile to a file under a writable directory (the root filesystem
//     is read-only) and returns its path.
//
// The manager runs Setup in a WebIdentityProvider (sts.go), a Runnable that retries it
// until it succeeds and then serves the profile's web identity credentials, so that the
// manager starts, serves its probes and reports the wait instead of crash-looping.
//
// Without ROLEARN, on a cluster whose CCO hands out access keys (its CloudCredential
// named cluster is in mint, passthrough or the default mode) and when the environment
// gives no credentials of its own, the manager asks for an access key instead
// (EnsureRequest without a role ARN) and reads it from CCO's Secret on every
// retrieval through SecretProvider, without blocking its start (mint.go). Otherwise
// the SDK's default credential chain applies.
package credentials
