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
	// violation records that value (or null, when the member is absent)
	// breaks one of member's constraints.
	violation := func(value *string, member, constraint string) {
		v := "null"
		if value != nil {
			v = "'" + *value + "'"
		}
		violations = append(violations, fmt.Sprintf("Value %s at '%s' failed to satisfy constraint: Member %s", v, member, constraint))
	}

	if !form.Has("RoleArn") {
		violation(nil, "roleArn", "must not be null")
	} else if c := lengthViolation(in.roleARN, 20, 2048); c != "" {
		violation(&in.roleARN, "roleArn", c)
	}
	if !form.Has("RoleSessionName") {
		violation(nil, "roleSessionName", "must not be null")
	} else {
		if c := lengthViolation(in.sessionName, 2, 64); c != "" {
			violation(&in.sessionName, "roleSessionName", c)
		}
		if !sessionNamePattern.MatchString(in.sessionName) {
			violation(&in.sessionName, "roleSessionName", `must satisfy regular expression pattern: [\w+=,.@-]*`)
		}
	}
	if form.Has("ExternalId") {
		if c := lengthViolation(in.externalID, 2, 1224); c != "" {
			violation(&in.externalID, "externalId", c)
		}
		if !externalIDPattern.MatchString(in.externalID) {
			violation(&in.externalID, "externalId", `must satisfy regular expression pattern: [\w+=,.@:\/-]*`)
		}
	}
	if form.Has("DurationSeconds") {
		raw := form.Get("DurationSeconds")
		n, err := strconv.Atoi(raw)
		switch {
		case err != nil:
			violation(&raw, "durationSeconds", "must be an integer")
		case n < minDurationSeconds:
			violation(&raw, "durationSeconds", fmt.Sprintf("must have value greater than or equal to %d", minDurationSeconds))
		case n > maxDurationSeconds:
			violation(&raw, "durationSeconds", fmt.Sprintf("must have value less than or equal to %d", maxDurationSeconds))
		}
		in.durationSeconds, in.hasDuration = n, true
	}
	if len(violations) > 0 {
		return in, constraintErrors(violations)
	}
	return in, nil
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
