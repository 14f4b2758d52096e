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

package accounts

import "net/http"

// routeError is an EC2 error the router answers before any Sim sees the
// request. Messages contain no characters that need XML escaping.
type routeError struct {
	code    string
	message string
	status  int
}

var (
	// errAuthFailure is EC2's answer for an access key AWS has no record of
	// (EC2 API Reference, common client error AuthFailure).
	errAuthFailure = routeError{"AuthFailure", "AWS was not able to validate the provided access credentials", http.StatusUnauthorized}
	// errRequestExpired is what EC2 answers when temporary credentials have
	// passed their Expiration. EC2 reports RequestExpired ("Request has
	// expired.", HTTP 400) where most other services say ExpiredToken.
	errRequestExpired = routeError{"RequestExpired", "Request has expired.", http.StatusBadRequest}
	// errMissingAuth is the answer to a request without SigV4 credentials
	// (common error MissingAuthenticationToken).
	errMissingAuth = routeError{"MissingAuthenticationToken", "The request must contain either a valid (registered) AWS access key ID or X.509 certificate.", http.StatusUnauthorized}
	// errOptInRequired answers a valid key of an account that has no EC2
	// endpoint in this router, as EC2 answers an account not signed up for
	// the service (common error OptInRequired).
	errOptInRequired = routeError{"OptInRequired", "You are not subscribed to this service. Please go to http://aws.amazon.com to subscribe.", http.StatusUnauthorized}
)
