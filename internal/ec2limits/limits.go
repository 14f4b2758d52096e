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

// Package ec2limits holds Amazon EC2's documented API request limits, for the client,
// which paces its calls to stay under them, and for the emulator, which enforces them.
//
// EC2 throttles each account per Region with token buckets ("Request throttling for
// the Amazon EC2 API", EC2 Developer Guide): every API has its own request bucket,
// sized by the API's category, and RunInstances, StartInstances, StopInstances and
// TerminateInstances also draw one resource token per instance from a second bucket.
// A call that finds its bucket empty fails with RequestLimitExceeded. The numbers
// below are the documented defaults; AWS raises them for an account on request, so
// every bucket can be overridden (Parse).
package ec2limits

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Bucket is a token bucket: it holds up to Capacity tokens and gains RefillPerSecond
// tokens per second.
type Bucket struct {
	Capacity        float64
	RefillPerSecond float64
}

// String writes the bucket as capacity/refill, the form Parse reads.
func (b Bucket) String() string {
	return strconv.FormatFloat(b.Capacity, 'f', -1, 64) + "/" + strconv.FormatFloat(b.RefillPerSecond, 'f', -1, 64)
}

// The request bucket of each API category, per the EC2 Developer Guide's table
// "Request token bucket sizes and refill rates".
var (
	// NonMutating is Describe*, List*, Search* and Get* actions.
	NonMutating = Bucket{Capacity: 100, RefillPerSecond: 20}
	// UnfilteredNonMutating is the listed Describe* actions (DescribeInstances among
	// them) when called with neither a filter nor pagination.
	UnfilteredNonMutating = Bucket{Capacity: 50, RefillPerSecond: 10}
	// Mutating is every other action that changes something.
	Mutating = Bucket{Capacity: 50, RefillPerSecond: 5}
	// ResourceIntensive is the listed expensive actions, CancelSpotInstanceRequests
	// among them.
	ResourceIntensive = Bucket{Capacity: 50, RefillPerSecond: 5}
)

// unfilteredActions use UnfilteredNonMutating when called without a filter or
// pagination.
var unfilteredActions = map[string]bool{
	"DescribeInstances": true, "DescribeInstanceStatus": true, "DescribeNetworkInterfaces": true,
	"DescribeSecurityGroups": true, "DescribeSnapshots": true, "DescribeSpotInstanceRequests": true,
	"DescribeVolumes": true,
}

// resourceIntensiveActions are the listed resource-intensive actions.
var resourceIntensiveActions = map[string]bool{
	"AcceptVpcPeeringConnection": true, "AuthorizeSecurityGroupIngress": true, "CancelSpotInstanceRequests": true,
	"CreateKeyPair": true, "CreateVpcPeeringConnection": true, "DeleteVpcPeeringConnection": true,
	"RejectVpcPeeringConnection": true, "RevokeSecurityGroupIngress": true, "RequestSpotInstances": true,
}

// ownRequestBuckets are the actions with a bucket of their own size (the guide's
// uncategorized actions) that the operator calls.
var ownRequestBuckets = map[string]Bucket{
	"RunInstances":                  {Capacity: 5, RefillPerSecond: 2},
	"StartInstances":                {Capacity: 5, RefillPerSecond: 2},
	"TerminateInstances":            {Capacity: 100, RefillPerSecond: 5},
	"CreateTags":                    {Capacity: 100, RefillPerSecond: 10},
	"DeleteTags":                    {Capacity: 100, RefillPerSecond: 10},
	"ModifyInstanceMetadataOptions": {Capacity: 100, RefillPerSecond: 5},
	"AssociateIamInstanceProfile":   {Capacity: 100, RefillPerSecond: 5},
}

// documentedResourceBuckets are the guide's "Resource token bucket sizes and refill
// rates": one token per instance the call affects.
var documentedResourceBuckets = map[string]Bucket{
	"RunInstances":       {Capacity: 1000, RefillPerSecond: 2},
	"StartInstances":     {Capacity: 1000, RefillPerSecond: 2},
	"StopInstances":      {Capacity: 1000, RefillPerSecond: 20},
	"TerminateInstances": {Capacity: 1000, RefillPerSecond: 20},
}

// unfilteredSuffix marks the request bucket of an action called without a filter or
// pagination, where the action has such a bucket.
const unfilteredSuffix = ":unfiltered"

// RequestKey names the request bucket a call draws from: the action, or for the
// actions with a smaller bucket for unfiltered, unpaginated calls, the action with a
// suffix when the call has neither.
func RequestKey(action string, filteredOrPaginated bool) string {
	if unfilteredActions[action] && !filteredOrPaginated {
		return action + unfilteredSuffix
	}
	return action
}

// Limits are the buckets an account has: the documented defaults, with overrides.
type Limits struct {
	// request and resource override the documented buckets, by request key and by
	// action.
	request  map[string]Bucket
	resource map[string]Bucket
	// scale multiplies every bucket that is not overridden; zero means one.
	scale float64
}

// Scaled returns the limits with every bucket that is not overridden multiplied by
// factor, capacity and refill alike: an account whose limits AWS raised across the
// board (an emulator's configuration; the operator is told overrides, or learns).
func (l Limits) Scaled(factor float64) Limits {
	l.scale = factor
	return l
}

// scaled applies the scale to a documented bucket.
func (l Limits) scaled(b Bucket) Bucket {
	if l.scale == 0 {
		return b
	}
	return Bucket{Capacity: b.Capacity * l.scale, RefillPerSecond: b.RefillPerSecond * l.scale}
}

// Documented returns the documented default limits.
func Documented() Limits {
	return Limits{request: map[string]Bucket{}, resource: map[string]Bucket{}}
}

// Request returns the request bucket of a request key (see RequestKey).
func (l Limits) Request(key string) Bucket {
	if b, ok := l.request[key]; ok {
		return b
	}
	action, unfiltered := strings.CutSuffix(key, unfilteredSuffix)
	if b, ok := l.request[action]; ok && !unfiltered {
		return b
	}
	switch {
	case unfiltered:
		return l.scaled(UnfilteredNonMutating)
	case ownRequestBuckets[action] != (Bucket{}):
		return l.scaled(ownRequestBuckets[action])
	case resourceIntensiveActions[action]:
		return l.scaled(ResourceIntensive)
	case isNonMutating(action):
		return l.scaled(NonMutating)
	default:
		return l.scaled(Mutating)
	}
}

// Resource returns the resource bucket of an action, if it has one.
func (l Limits) Resource(action string) (Bucket, bool) {
	if b, ok := l.resource[action]; ok {
		return b, true
	}
	b, ok := documentedResourceBuckets[action]
	return l.scaled(b), ok
}

func isNonMutating(action string) bool {
	for _, prefix := range []string{"Describe", "List", "Search", "Get"} {
		if strings.HasPrefix(action, prefix) {
			return true
		}
	}
	return false
}

// Parse applies overrides written as comma-separated ACTION=CAPACITY/REFILL entries,
// with ACTION.resources for a resource bucket and ACTION:unfiltered for the unfiltered
// request bucket, for example "RunInstances=50/20,RunInstances.resources=5000/10"
// (an account whose limits AWS raised).
func (l Limits) Parse(spec string) (Limits, error) {
	out := Limits{request: map[string]Bucket{}, resource: map[string]Bucket{}, scale: l.scale}
	for k, v := range l.request {
		out.request[k] = v
	}
	for k, v := range l.resource {
		out.resource[k] = v
	}
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, value, ok := strings.Cut(entry, "=")
		capText, refillText, ok2 := strings.Cut(value, "/")
		capacity, err1 := strconv.ParseFloat(capText, 64)
		refill, err2 := strconv.ParseFloat(refillText, 64)
		if !ok || !ok2 || err1 != nil || err2 != nil || capacity < 1 || refill <= 0 || name == "" {
			return Limits{}, fmt.Errorf("bucket %q: want ACTION=CAPACITY/REFILL with capacity >= 1 and refill > 0", entry)
		}
		b := Bucket{Capacity: capacity, RefillPerSecond: refill}
		if action, isResource := strings.CutSuffix(name, ".resources"); isResource {
			out.resource[action] = b
		} else {
			out.request[name] = b
		}
	}
	return out, nil
}

// String lists the overrides in Parse's form, sorted; "" for the documented defaults.
func (l Limits) String() string {
	var parts []string
	for k, b := range l.request {
		parts = append(parts, k+"="+b.String())
	}
	for k, b := range l.resource {
		parts = append(parts, k+".resources="+b.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
