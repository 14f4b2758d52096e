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

package ec2sim

import "sort"

// EC2 restricts instance tag keys while an instance exposes its tags in
// instance metadata (EC2 User Guide, "View tags for your EC2 instances using
// instance metadata"): keys may only use letters, digits and + - = . , _ : @,
// may not contain spaces or /, and may not be only ".", ".." or "_index" (an
// earlier version of the guide named "_links"; both are refused here). The
// rule covers instance tags only: volumes, interfaces and addresses keep
// EC2's general tag rules. EC2 answers InvalidParameterValue with the
// message below on RunInstances and ModifyInstanceMetadataOptions, as quoted
// in aws/aws-cli#8825, aws-controllers-k8s/community#1789 and
// aws/karpenter-provider-aws#1527. No public source quotes the answer to
// CreateTags on such an instance; the simulator gives the same one, the
// closest documented code.

// imdsTagsEnabled reports whether metadata options expose instance tags.
func imdsTagsEnabled(md MetadataOptions) bool { return md.InstanceMetadataTags == "enabled" }

// imdsTagKeyValid reports whether key is allowed on an instance whose tags
// are exposed in instance metadata.
func imdsTagKeyValid(key string) bool {
	switch key {
	case "", ".", "..", "_index", "_links":
		return false
	}
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '+', r == '-', r == '=', r == '.', r == ',', r == '_', r == ':', r == '@':
		default:
			return false
		}
	}
	return true
}

// invalidIMDSTagKey is EC2's answer to an instance tag key that instance
// metadata cannot carry.
func invalidIMDSTagKey(key string) *apiError {
	return invalidValue("'%s' is not a valid tag key. Tag keys must match pattern ([0-9a-zA-Z\\-_+=,.@:]{1,255}), "+
		"and must not be a reserved name ('.', '..', '_index')", key)
}

// checkIMDSTagKeys refuses the first key of keys (in sorted order, so the
// answer is stable) that instance metadata cannot carry.
func checkIMDSTagKeys(keys []string) *apiError {
	sort.Strings(keys)
	for _, k := range keys {
		if !imdsTagKeyValid(k) {
			return invalidIMDSTagKey(k)
		}
	}
	return nil
}

// checkIMDSTags applies the rule to an instance's tags and metadata options.
func checkIMDSTags(md MetadataOptions, tags map[string]string) *apiError {
	if !imdsTagsEnabled(md) {
		return nil
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	return checkIMDSTagKeys(keys)
}

// checkIMDSTagPairs applies the rule to tags CreateTags adds to an instance.
func checkIMDSTagPairs(in *instance, tags []tagPair) *apiError {
	if !imdsTagsEnabled(in.MetadataOptions) {
		return nil
	}
	keys := make([]string, 0, len(tags))
	for _, t := range tags {
		keys = append(keys, t.key)
	}
	return checkIMDSTagKeys(keys)
}
