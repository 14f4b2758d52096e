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

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"time"
)

// Documented AssumeRole parameter constraints (STS API Reference, AssumeRole,
// Request Parameters).
const (
	minDurationSeconds = 900   // 15 minutes
	maxDurationSeconds = 43200 // 12 hours
	defaultDuration    = 3600 * time.Second
	// chainedMaxSession caps a session assumed with temporary credentials
	// ("role chaining"), whatever the role's MaxSessionDuration.
	chainedMaxSession = time.Hour
)

var (
	// sessionNamePattern is RoleSessionName's documented pattern [\w+=,.@-]*.
	sessionNamePattern = regexp.MustCompile(`^[\w+=,.@-]*$`)
	// externalIDPattern is ExternalId's documented pattern [\w+=,.@:\/-]*.
	externalIDPattern = regexp.MustCompile(`^[\w+=,.@:/-]*$`)
)

// assumeRole issues temporary credentials for a role in the account its ARN
// names, if the role's trust policy admits the caller: the caller's access
// key must be trusted and, when the role requires an external ID, ExternalId
// must match it exactly. Every failed trust check is the same AccessDenied,
// as in AWS, so callers cannot probe which condition failed.
func (s *Sim) assumeRole(caller *accessKey, form url.Values, x *xmlBuilder) *apiError {
	in, apiErr := parseAssumeRole(form)
	if apiErr != nil {
		return apiErr
	}
	r, ok := s.roles[in.roleARN]
	if !ok || !r.trusted[caller.id] || (r.externalID != "" && in.externalID != r.externalID) {
		return accessDenied(caller.arn, "sts:AssumeRole", in.roleARN)
	}
	duration := defaultDuration
	if in.hasDuration {
		duration = time.Duration(in.durationSeconds) * time.Second
		if caller.temporary && duration > chainedMaxSession {
			return validationError("The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.")
		}
		if duration > r.maxSession {
			return validationError("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
		}
	}

	// Expiration is rendered in whole seconds, so the key expires at exactly
	// the instant the client was told.
	expires := s.now().Add(duration).Truncate(time.Second)
	key := &accessKey{
		id:           s.temporaryKeyID(),
		secret:       s.randomString(secretAlphabet, 40),
		accountID:    r.accountID,
		arn:          fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", r.accountID, r.name, in.sessionName),
		userID:       r.id + ":" + in.sessionName,
		temporary:    true,
		sessionToken: "IQoJb3JpZ2luX2VjE" + s.randomString(secretAlphabet, 340),
		expires:      expires,
	}
	s.keys[key.id] = key

	x.open("Credentials")
	x.leaf("AccessKeyId", key.id)
	x.leaf("SecretAccessKey", key.secret)
	x.leaf("SessionToken", key.sessionToken)
	x.timeLeaf("Expiration", key.expires)
	x.close("Credentials")
	x.open("AssumedRoleUser")
	x.leaf("AssumedRoleId", key.userID)
	x.leaf("Arn", key.arn)
	x.close("AssumedRoleUser")
	return nil
}

// assumeRoleInput is the part of an AssumeRole request the simulator models.
type assumeRoleInput struct {
	roleARN         string
	sessionName     string
	externalID      string
	durationSeconds int
	hasDuration     bool
}

// parseAssumeRole checks every parameter against its documented constraints
// and reports all violations in one ValidationError, as AWS does, naming
// members in the camelCase the service uses ('roleSessionName').
func parseAssumeRole(form url.Values) (assumeRoleInput, *apiError) {
	in := assumeRoleInput{
		roleARN:     form.Get("RoleArn"),
		sessionName: form.Get("RoleSessionName"),
		externalID:  form.Get("ExternalId"),
	}
	var violations []string
	for _, c := range assumeRoleStrings {
		violations = append(violations, c.violations(form)...)
	}
	if form.Has("DurationSeconds") {
		raw := form.Get("DurationSeconds")
		n, err := strconv.Atoi(raw)
		switch {
		case err != nil:
			violations = append(violations, violation(&raw, "durationSeconds", "must be an integer"))
		case n < minDurationSeconds:
			violations = append(violations, violation(&raw, "durationSeconds", fmt.Sprintf("must have value greater than or equal to %d", minDurationSeconds)))
		case n > maxDurationSeconds:
			violations = append(violations, violation(&raw, "durationSeconds", fmt.Sprintf("must have value less than or equal to %d", maxDurationSeconds)))
		}
		in.durationSeconds, in.hasDuration = n, true
	}
	if len(violations) > 0 {
		return in, constraintErrors(violations)
	}
	return in, nil
}

// stringConstraint is what the API reference says of one string parameter of
// AssumeRole: whether it is required, its length and its pattern (nil: any).
type stringConstraint struct {
	param, member  string
	required       bool
	minLen, maxLen int
	pattern        *regexp.Regexp
	patternText    string
}

// assumeRoleStrings are AssumeRole's string parameters, in the order AWS
// reports their violations.
var assumeRoleStrings = []stringConstraint{
	{param: "RoleArn", member: "roleArn", required: true, minLen: 20, maxLen: 2048},
	{param: "RoleSessionName", member: "roleSessionName", required: true, minLen: 2, maxLen: 64,
		pattern: sessionNamePattern, patternText: `[\w+=,.@-]*`},
	{param: "ExternalId", member: "externalId", minLen: 2, maxLen: 1224,
		pattern: externalIDPattern, patternText: `[\w+=,.@:\/-]*`},
}

// violations returns how the form's value of c breaks it: absent though
// required, too short or long, or off the pattern.
func (c stringConstraint) violations(form url.Values) []string {
	if !form.Has(c.param) {
		if c.required {
			return []string{violation(nil, c.member, "must not be null")}
		}
		return nil
	}
	v := form.Get(c.param)
	var out []string
	if l := lengthViolation(v, c.minLen, c.maxLen); l != "" {
		out = append(out, violation(&v, c.member, l))
	}
	if c.pattern != nil && !c.pattern.MatchString(v) {
		out = append(out, violation(&v, c.member, "must satisfy regular expression pattern: "+c.patternText))
	}
	return out
}

// violation words how value (or null, when the member is absent) breaks one of
// member's constraints, as AWS validation messages do.
func violation(value *string, member, constraint string) string {
	v := "null"
	if value != nil {
		v = "'" + *value + "'"
	}
	return fmt.Sprintf("Value %s at '%s' failed to satisfy constraint: Member %s", v, member, constraint)
}

// lengthViolation words a string length constraint the way AWS validation
// messages do, or returns "" when v satisfies it. Lengths count characters.
func lengthViolation(v string, minLen, maxLen int) string {
	n := len([]rune(v))
	switch {
	case n < minLen:
		return fmt.Sprintf("must have length greater than or equal to %d", minLen)
	case n > maxLen:
		return fmt.Sprintf("must have length less than or equal to %d", maxLen)
	}
	return ""
}
