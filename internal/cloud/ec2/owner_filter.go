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

package ec2

import (
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// ownerTagFilters turns wanted tags into DescribeInstances filters that find instances
// carrying the ownership tags in either form (see IMDSSafePrefix) in one call. EC2
// ANDs filters and ORs the values of one, so "tag-key" in {key, safe key} with
// "tag-value" = value finds every instance with either key and some tag with that
// value: a superset, which matches narrows to the instances that really carry the
// tags. Only one ownership key can use that pair (a second "tag-value" would match
// any tag's value again), so the other ownership keys are checked client-side only;
// tags that are not ownership keys keep the exact "tag:KEY" filter.
func ownerTagFilters(want map[string]string) []types.Filter {
	var filters []types.Filter
	paired := false
	for _, k := range slices.Sorted(maps.Keys(want)) {
		switch {
		case !IsOwnershipKey(k):
			filters = append(filters, types.Filter{Name: aws.String("tag:" + k), Values: []string{want[k]}})
		case !paired:
			paired = true
			filters = append(filters,
				types.Filter{Name: aws.String("tag-key"), Values: []string{k, SafeOwnershipKey(k)}},
				types.Filter{Name: aws.String("tag-value"), Values: []string{want[k]}})
		}
	}
	return filters
}

// CarriesTags reports whether tags hold every wanted tag, ownership keys (named in
// the TagPrefix form) in either form. It is exported so that the fakes of the
// phases' EC2 interfaces match tags exactly as FindInstances does.
func CarriesTags(tags, want map[string]string) bool {
	for k, v := range want {
		got, ok := tags[k]
		if IsOwnershipKey(k) {
			got, ok = LookupOwnerTag(tags, k)
		}
		if !ok || got != v {
			return false
		}
	}
	return true
}
