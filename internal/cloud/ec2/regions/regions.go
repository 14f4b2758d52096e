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

// Package regions knows which AWS regions exist, per partition, so that a region a
// tenant types is checked before any client, rate limiter or cache is made for it.
package regions

import (
	"slices"
)

// partitionRegions are the regions of each AWS partition, as the AWS SDK's endpoint
// rules list them (aws-sdk-go-v2 internal/endpoints/awsrulesfn/partitions.json);
// TestTheRegionListIsTheSDKs fails when a new SDK lists others. A region string is
// something a tenant types: without this list every typo or invented name would get
// a long-lived client (and a rate limiter and caches) of its own, and calls to an
// endpoint that does not exist.
var partitionRegions = map[string][]string{
	"aws": {
		"af-south-1", "ap-east-1", "ap-east-2", "ap-northeast-1", "ap-northeast-2", "ap-northeast-3",
		"ap-south-1", "ap-south-2", "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4",
		"ap-southeast-5", "ap-southeast-6", "ap-southeast-7", "ca-central-1", "ca-west-1",
		"eu-central-1", "eu-central-2", "eu-north-1", "eu-south-1", "eu-south-2", "eu-west-1", "eu-west-2", "eu-west-3",
		"il-central-1", "me-central-1", "me-south-1", "me-west-1", "mx-central-1", "sa-east-1", "sa-west-1",
		"us-east-1", "us-east-2", "us-west-1", "us-west-2",
	},
	"aws-cn":     {"cn-north-1", "cn-northwest-1"},
	"aws-eusc":   {"eusc-de-east-1"},
	"aws-iso":    {"us-iso-east-1", "us-iso-west-1"},
	"aws-iso-b":  {"us-isob-east-1", "us-isob-west-1"},
	"aws-iso-e":  {"eu-isoe-west-1"},
	"aws-iso-f":  {"us-isof-east-1", "us-isof-south-1"},
	"aws-us-gov": {"us-gov-east-1", "us-gov-west-1"},
}

// Known reports whether the region is in one of the partitions.
func Known(region string) bool {
	for _, regions := range partitionRegions {
		if slices.Contains(regions, region) {
			return true
		}
	}
	return false
}
