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

package stssim_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/sim/stssim"
)

// TestAssumeRoleAndCallerIdentity follows the STS API Reference for
// AssumeRole (Response Elements: Credentials, AssumedRoleUser with an
// arn:aws:sts::<account>:assumed-role/<role>/<session> ARN) and
// GetCallerIdentity (Account, Arn, UserId of the signing identity; for an
// assumed role the UserId is "<role id>:<session name>").
func TestAssumeRoleAndCallerIdentity(t *testing.T) {
	sim, clock, endpoint := newEnv(t)
	op := client(endpoint, operatorKey, operatorSecret, "")

	me, err := op.GetCallerIdentity(simtest.Ctx(t), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatalf("GetCallerIdentity as operator: %v", err)
	}
	if aws.ToString(me.Account) != operatorAccount || aws.ToString(me.Arn) != "arn:aws:iam::111111111111:user/ec2-operator" ||
		!strings.HasPrefix(aws.ToString(me.UserId), "AIDA") {
		t.Fatalf("operator identity = %s %s %s", aws.ToString(me.Account), aws.ToString(me.Arn), aws.ToString(me.UserId))
	}

	out, err := assume(t, op, roleA, extA, nil)
	if err != nil {
		t.Fatalf("AssumeRole: %v", err)
	}
	c := out.Credentials
	if !strings.HasPrefix(aws.ToString(c.AccessKeyId), "ASIA") || len(aws.ToString(c.AccessKeyId)) != 20 ||
		aws.ToString(c.SecretAccessKey) == "" || aws.ToString(c.SessionToken) == "" {
		t.Fatalf("credentials = %+v", c)
	}
	if want := clock.Now().Add(time.Hour); !aws.ToTime(c.Expiration).Equal(want) {
		t.Fatalf("Expiration = %v, want the default one hour, %v", aws.ToTime(c.Expiration), want)
	}
	wantARN := "arn:aws:sts::222222222222:assumed-role/ec2-operator/ns-a"
	if aws.ToString(out.AssumedRoleUser.Arn) != wantARN {
		t.Fatalf("AssumedRoleUser.Arn = %s, want %s", aws.ToString(out.AssumedRoleUser.Arn), wantARN)
	}
	roleID := aws.ToString(out.AssumedRoleUser.AssumedRoleId)
	if !strings.HasPrefix(roleID, "AROA") || !strings.HasSuffix(roleID, ":ns-a") {
		t.Fatalf("AssumedRoleId = %s", roleID)
	}

	temp := client(endpoint, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken))
	who, err := temp.GetCallerIdentity(simtest.Ctx(t), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatalf("GetCallerIdentity with temporary keys: %v", err)
	}
	if aws.ToString(who.Account) != accountA || aws.ToString(who.Arn) != wantARN || aws.ToString(who.UserId) != roleID {
		t.Fatalf("assumed identity = %s %s %s", aws.ToString(who.Account), aws.ToString(who.Arn), aws.ToString(who.UserId))
	}
	if got := sim.Calls("AssumeRole"); got != 1 {
		t.Fatalf("Calls(AssumeRole) = %d, want 1", got)
	}
}

// TestAssumeRoleAccessDenied follows the IAM User Guide on the external ID
// ("How to use an external ID when granting access to your AWS resources to
// a third party": the trust policy's sts:ExternalId condition must match)
// and the STS AssumeRole error AccessDenied, whose message has the form
// "User: <caller arn> is not authorized to perform: sts:AssumeRole on
// resource: <role arn>" whichever trust condition failed.
func TestAssumeRoleAccessDenied(t *testing.T) {
	_, _, endpoint := newEnv(t)
	op := client(endpoint, operatorKey, operatorSecret, "")
	stranger := client(endpoint, strangerKey, "stranger-secret", "")
	opDenied := "User: arn:aws:iam::111111111111:user/ec2-operator is not authorized to perform: sts:AssumeRole on resource: " + roleA

	cases := []struct {
		name        string
		c           *sts.Client
		role, ext   string
		wantMessage string
	}{
		{"wrong external id", op, roleA, "ns-b-0000", opDenied},
		{"missing external id", op, roleA, "", opDenied},
		{"untrusted caller", stranger, roleA, extA,
			"User: arn:aws:iam::111111111111:user/stranger is not authorized to perform: sts:AssumeRole on resource: " + roleA},
		{"role that does not exist", op, "arn:aws:iam::222222222222:role/nope", extA,
			"User: arn:aws:iam::111111111111:user/ec2-operator is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::222222222222:role/nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := assume(t, tc.c, tc.role, tc.ext, nil)
			ae := simtest.WantCode(t, err, "AccessDenied")
			if ae.ErrorMessage() != tc.wantMessage {
				t.Fatalf("message = %q, want %q", ae.ErrorMessage(), tc.wantMessage)
			}
		})
	}
}

// TestAssumeRoleDurationSeconds follows the AssumeRole DurationSeconds
// documentation: 900 to 43200 seconds, default 3600, and never more than the
// role's maximum session duration (one hour unless the role raises it);
// a role assumed with temporary credentials (role chaining) is capped at
// one hour.
func TestAssumeRoleDurationSeconds(t *testing.T) {
	sim, clock, endpoint := newEnv(t)
	op := client(endpoint, operatorKey, operatorSecret, "")

	out, err := assume(t, op, roleA, extA, aws.Int32(900))
	if err != nil {
		t.Fatalf("DurationSeconds 900: %v", err)
	}
	if want := clock.Now().Add(15 * time.Minute); !aws.ToTime(out.Credentials.Expiration).Equal(want) {
		t.Fatalf("Expiration = %v, want %v", aws.ToTime(out.Credentials.Expiration), want)
	}
	if _, err := assume(t, op, roleA, extA, aws.Int32(3600)); err != nil {
		t.Fatalf("DurationSeconds 3600: %v", err)
	}

	ae := simtest.WantCode(t, errOf(assume(t, op, roleA, extA, aws.Int32(899))), "ValidationError")
	if want := "1 validation error detected: Value '899' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900"; ae.ErrorMessage() != want {
		t.Fatalf("message = %q, want %q", ae.ErrorMessage(), want)
	}
	ae = simtest.WantCode(t, errOf(assume(t, op, roleA, extA, aws.Int32(43201))), "ValidationError")
	if !strings.Contains(ae.ErrorMessage(), "Member must have value less than or equal to 43200") {
		t.Fatalf("message = %q", ae.ErrorMessage())
	}
	ae = simtest.WantCode(t, errOf(assume(t, op, roleA, extA, aws.Int32(3601))), "ValidationError")
	if want := "The requested DurationSeconds exceeds the MaxSessionDuration set for this role."; ae.ErrorMessage() != want {
		t.Fatalf("message = %q, want %q", ae.ErrorMessage(), want)
	}

	if !sim.SetRoleMaxSessionDuration(roleA, 12*time.Hour) {
		t.Fatal("SetRoleMaxSessionDuration failed")
	}
	long, err := assume(t, op, roleA, extA, aws.Int32(43200))
	if err != nil {
		t.Fatalf("DurationSeconds 43200 with a 12 h role: %v", err)
	}

	// Role chaining: the role trusts the temporary key, which may then
	// assume it for at most one hour.
	tempKey := aws.ToString(long.Credentials.AccessKeyId)
	sim.AddRole("arn:aws:iam::222222222222:role/chained", []string{tempKey}, "")
	sim.SetRoleMaxSessionDuration("arn:aws:iam::222222222222:role/chained", 12*time.Hour)
	temp := client(endpoint, tempKey, aws.ToString(long.Credentials.SecretAccessKey), aws.ToString(long.Credentials.SessionToken))
	ae = simtest.WantCode(t, errOf(assume(t, temp, "arn:aws:iam::222222222222:role/chained", "", aws.Int32(3601))), "ValidationError")
	if !strings.Contains(ae.ErrorMessage(), "role chaining") {
		t.Fatalf("message = %q", ae.ErrorMessage())
	}
	if _, err := assume(t, temp, "arn:aws:iam::222222222222:role/chained", "", aws.Int32(3600)); err != nil {
		t.Fatalf("chained AssumeRole for one hour: %v", err)
	}
}

// TestAssumeRoleParameterValidation follows the AssumeRole Request
// Parameters constraints: RoleSessionName is required, 2 to 64 characters
// of [\w+=,.@-]*; ExternalId is 2 to 1224 characters of [\w+=,.@:\/-]*;
// RoleArn is 20 to 2048 characters. Violations are one ValidationError
// listing each failed constraint.
func TestAssumeRoleParameterValidation(t *testing.T) {
	_, _, endpoint := newEnv(t)
	op := client(endpoint, operatorKey, operatorSecret, "")
	cases := []struct {
		name, session, ext, role, want string
	}{
		{"short session name", "a", extA, roleA,
			"1 validation error detected: Value 'a' at 'roleSessionName' failed to satisfy constraint: Member must have length greater than or equal to 2"},
		{"session name pattern", "ns a!", extA, roleA,
			`1 validation error detected: Value 'ns a!' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\w+=,.@-]*`},
		{"long session name", strings.Repeat("s", 65), extA, roleA,
			"Member must have length less than or equal to 64"},
		{"external id pattern", "ns-a", "ns a", roleA,
			`Value 'ns a' at 'externalId' failed to satisfy constraint: Member must satisfy regular expression pattern: [\w+=,.@:\/-]*`},
		{"short role arn", "ns-a", extA, "arn:aws:iam::1:role",
			"Value 'arn:aws:iam::1:role' at 'roleArn' failed to satisfy constraint: Member must have length greater than or equal to 20"},
		{"two violations", "a", "x", roleA, "2 validation errors detected: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := op.AssumeRole(simtest.Ctx(t), &sts.AssumeRoleInput{
				RoleArn: aws.String(tc.role), RoleSessionName: aws.String(tc.session), ExternalId: aws.String(tc.ext),
			})
			ae := simtest.WantCode(t, err, "ValidationError")
			if !strings.Contains(ae.ErrorMessage(), tc.want) {
				t.Fatalf("message = %q, want it to contain %q", ae.ErrorMessage(), tc.want)
			}
		})
	}

	// The SDK refuses to send a request without a required member, so the
	// service's own answer is checked on the wire.
	resp := rawPost(t, endpoint, operatorKey, map[string][]string{
		"Action": {"AssumeRole"}, "Version": {"2011-06-15"}, "RoleArn": {roleA},
	})
	body, _ := io.ReadAll(resp.Body)
	want := "<Code>ValidationError</Code><Message>1 validation error detected: Value null at &#39;roleSessionName&#39; failed to satisfy constraint: Member must not be null</Message>"
	if resp.StatusCode != 400 || !strings.Contains(string(body), want) {
		t.Fatalf("missing RoleSessionName: status %d, body %s", resp.StatusCode, body)
	}
}

// TestCallerAuthentication follows the STS common errors: an access key
// STS has no record of is InvalidClientTokenId ("The security token included
// in the request is invalid."), and temporary credentials past their
// Expiration are ExpiredToken. Temporary credentials used without their
// session token are as invalid as an unknown key.
func TestCallerAuthentication(t *testing.T) {
	_, clock, endpoint := newEnv(t)
	_, err := client(endpoint, "AKIAUNKNOWN000000001", "x", "").GetCallerIdentity(simtest.Ctx(t), &sts.GetCallerIdentityInput{})
	ae := simtest.WantCode(t, err, "InvalidClientTokenId")
	if ae.ErrorMessage() != "The security token included in the request is invalid." {
		t.Fatalf("message = %q", ae.ErrorMessage())
	}

	out, err := assume(t, client(endpoint, operatorKey, operatorSecret, ""), roleA, extA, aws.Int32(900))
	if err != nil {
		t.Fatalf("AssumeRole: %v", err)
	}
	c := out.Credentials
	temp := client(endpoint, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken))
	// A temporary key is only valid with the session token issued with it.
	_, err = client(endpoint, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), "").GetCallerIdentity(simtest.Ctx(t), &sts.GetCallerIdentityInput{})
	simtest.WantCode(t, err, "InvalidClientTokenId")

	clock.Advance(15*time.Minute - time.Second)
	if _, err := temp.GetCallerIdentity(simtest.Ctx(t), &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatalf("one second before Expiration: %v", err)
	}
	clock.Advance(time.Second)
	_, err = temp.GetCallerIdentity(simtest.Ctx(t), &sts.GetCallerIdentityInput{})
	simtest.WantCode(t, err, "ExpiredToken")
}

// TestLookupAccessKey checks the account lookup the EC2 router relies on:
// base keys act in their user's account, temporary keys in the assumed
// role's account until their Expiration.
func TestLookupAccessKey(t *testing.T) {
	sim, clock, endpoint := newEnv(t)
	if acct, ok := sim.AccountOfAccessKey(operatorKey); !ok || acct != operatorAccount {
		t.Fatalf("operator key -> %q, %v", acct, ok)
	}
	if _, state := sim.LookupAccessKey("AKIANOBODY"); state != stssim.KeyUnknown {
		t.Fatalf("unknown key state = %v", state)
	}
	out, err := assume(t, client(endpoint, operatorKey, operatorSecret, ""), roleA, extA, nil)
	if err != nil {
		t.Fatalf("AssumeRole: %v", err)
	}
	key := aws.ToString(out.Credentials.AccessKeyId)
	if acct, ok := sim.AccountOfAccessKey(key); !ok || acct != accountA {
		t.Fatalf("temporary key -> %q, %v", acct, ok)
	}
	clock.Advance(time.Hour)
	if _, ok := sim.AccountOfAccessKey(key); ok {
		t.Fatal("expired temporary key still maps to an account")
	}
	if acct, state := sim.LookupAccessKey(key); state != stssim.KeyExpired || acct != accountA {
		t.Fatalf("expired key -> %q, %v", acct, state)
	}
}

// TestIssuedKeysAreDeterministic checks that the same seed and request
// order issue the same credentials, so failures replay exactly.
func TestIssuedKeysAreDeterministic(t *testing.T) {
	var keys [2]string
	for i := range keys {
		_, _, endpoint := newEnv(t)
		out, err := assume(t, client(endpoint, operatorKey, operatorSecret, ""), roleA, extA, nil)
		if err != nil {
			t.Fatalf("AssumeRole: %v", err)
		}
		keys[i] = aws.ToString(out.Credentials.AccessKeyId) + aws.ToString(out.Credentials.SecretAccessKey)
	}
	if keys[0] != keys[1] {
		t.Fatalf("same seed issued %q and %q", keys[0], keys[1])
	}
}

// errOf drops an output and keeps the error.
func errOf[T any](_ T, err error) error { return err }
