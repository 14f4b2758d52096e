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

// Package guardrail enforces an AWSAccount's guardrails where requests leave for EC2.
// Client wraps the EC2 client a reconcile pass is handed: every mutating request is
// checked against the account's rules before it is sent, whichever code path built it
// (a launch, drift correction, a selector re-resolved, an adopted or restored
// instance), and a request outside them fails with a Refusal and is never sent.
// Instance checks what EC2 describes of an existing instance, for the paths that take
// over one the operator did not launch for the object (adoption, restore, Observe).
package guardrail

import (
	"fmt"
	"regexp"
	"strings"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// Rules are one account's guardrails as they apply to one EC2 client: the account's
// ID (for the image owner alias self) and the client's region.
type Rules struct {
	Guardrails *computev1alpha1.Guardrails
	AccountID  string
	Region     string
	// guarded says the account has guardrails (New fills an empty set otherwise).
	guarded bool
}

// Violation is one value outside an account's guardrails.
type Violation struct {
	// Field says where the value is: a spec field, or a part of a request or an
	// instance.
	Field, Value string
	// Rule is the guardrails field (spec.guardrails.<Rule>) and Allowed its value.
	Rule    string
	Allowed []string
}

func (v Violation) String() string {
	if v.Rule == "" {
		// A refusal of its own (ownership): the value says it all.
		return v.Field + " " + v.Value
	}
	value := v.Value
	if value == "" {
		value = "unset (EC2's default)"
	} else {
		value = fmt.Sprintf("%q", value)
	}
	return fmt.Sprintf("%s %s is not allowed by spec.guardrails.%s (%s)", v.Field, value, v.Rule, strings.Join(v.Allowed, ", "))
}

// Refusal is the error of a request the guard did not send.
type Refusal struct {
	// Operation is the EC2 request refused, such as RunInstances.
	Operation string
	// Reason is the object's Ready reason for it: GuardrailViolation when empty, or
	// OwnershipRefused.
	Reason     string
	Violations []Violation
}

func (e *Refusal) Error() string {
	texts := make([]string, 0, len(e.Violations))
	for _, v := range e.Violations {
		texts = append(texts, v.String())
	}
	return fmt.Sprintf("%s refused before it was sent to EC2: %s", e.Operation, strings.Join(texts, "; "))
}

// checker collects the violations of one request or instance.
type checker struct {
	out []Violation
}

// list checks a value against a guardrail list: allowed when the list is unset or the
// value empty (the caller decides whether an empty value may be left to EC2), or when
// one pattern matches.
func (c *checker) list(field, value, rule string, allowed []string, match func(pattern, value string) bool) {
	if value == "" || allowed == nil {
		return
	}
	for _, p := range allowed {
		if match(p, value) {
			return
		}
	}
	c.out = append(c.out, Violation{Field: field, Value: value, Rule: rule, Allowed: allowed})
}

// required refuses a value left to EC2's default when the guardrail list constrains
// it: EC2's choice (the default subnet, the VPC's default group) lies outside what
// the account's administrator listed.
func (c *checker) required(field, value, rule string, allowed []string) {
	if value == "" && allowed != nil {
		c.out = append(c.out, Violation{Field: field, Rule: rule, Allowed: allowed})
	}
}

// add records a violation found by a rule of its own.
func (c *checker) add(v Violation) { c.out = append(c.out, v) }

// OwnerAllowed reports whether an image's owner is one of allowed: its account ID,
// its alias (amazon, aws-marketplace), self for the account's own, or *.
func OwnerAllowed(allowed []string, image ec2.Image, accountID string) bool {
	for _, a := range allowed {
		switch {
		case a == "*":
			return true
		case a == "self":
			if accountID != "" && image.OwnerID == accountID {
				return true
			}
		case a == image.OwnerID || (image.OwnerAlias != "" && a == image.OwnerAlias):
			return true
		}
	}
	return false
}

// ProfileMatch matches an instance profile: an ARN pattern against an ARN value, any
// other pattern against the profile's name.
func ProfileMatch(pattern, value string) bool {
	if strings.HasPrefix(pattern, "arn:") {
		return strings.HasPrefix(value, "arn:") && GlobMatch(pattern, value)
	}
	name := value
	if i := strings.LastIndex(value, "/"); strings.HasPrefix(value, "arn:") && i >= 0 {
		name = value[i+1:]
	}
	return GlobMatch(pattern, name)
}

// AnyGlob reports whether value matches one of the patterns.
func AnyGlob(patterns []string, value string) bool {
	for _, p := range patterns {
		if GlobMatch(p, value) {
			return true
		}
	}
	return false
}

// GlobMatch matches value against pattern, in which * matches any run of characters,
// slashes included (path.Match would stop at a slash, which ARNs and paths contain).
func GlobMatch(pattern, value string) bool {
	parts := strings.Split(pattern, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	re, err := regexp.Compile("^" + strings.Join(parts, ".*") + "$")
	return err == nil && re.MatchString(value)
}
