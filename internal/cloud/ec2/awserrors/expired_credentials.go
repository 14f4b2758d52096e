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
	"context"

	"github.com/aws/smithy-go/middleware"
)

// expiredCredentialCodes are EC2's answers to credentials that are no longer valid:
// RequestExpired for temporary credentials past their expiry (and for a request
// signed too long ago), ExpiredToken for an expired session token.
var expiredCredentialCodes = map[string]bool{"RequestExpired": true, "ExpiredToken": true}

// ExpiredCredentialsMiddleware drops the cached credentials when EC2 says they
// expired. The SDK's credentials cache judges expiry by the local clock and the
// expiry STS announced; EC2 is the authority, and the next call assumes the role
// afresh instead of failing until the cache's own window runs out.
type ExpiredCredentialsMiddleware struct {
	// Invalidate drops the cached credentials.
	Invalidate func()
}

func (ExpiredCredentialsMiddleware) ID() string { return "ec2-operator/ExpiredCredentials" }

func (m ExpiredCredentialsMiddleware) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	out, md, err := next.HandleFinalize(ctx, in)
	if code, _ := ErrorCode(err); expiredCredentialCodes[code] {
		m.Invalidate()
	}
	return out, md, err
}
