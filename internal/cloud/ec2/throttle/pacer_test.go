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

package throttle

import (
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
)

func TestSmallFastBucketsKeepAReserveForJitterAndSlowOnesTheirBurst(t *testing.T) {
	for _, tc := range []struct {
		bucket ec2limits.Bucket
		want   int
	}{
		{ec2limits.Bucket{Capacity: 1, RefillPerSecond: 1}, 0},
		{ec2limits.Bucket{Capacity: 2, RefillPerSecond: 0.1}, 0},
		{ec2limits.Bucket{Capacity: 2, RefillPerSecond: 2}, 1},
		{ec2limits.Bucket{Capacity: 4, RefillPerSecond: 2}, 1},
		{ec2limits.Bucket{Capacity: 5, RefillPerSecond: 2}, 1},
		{ec2limits.Bucket{Capacity: 100, RefillPerSecond: 20}, 10},
		{ec2limits.Bucket{Capacity: 10, RefillPerSecond: 20}, 2},
	} {
		if got := bucketReserve(tc.bucket); got != tc.want {
			t.Errorf("bucketReserve(%s) = %d, want %d", tc.bucket, got, tc.want)
		}
	}
}
