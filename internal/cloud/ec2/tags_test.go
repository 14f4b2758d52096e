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
	"reflect"
	"strings"
	"testing"
)

func TestDesiredTags(t *testing.T) {
	tests := []struct {
		name     string
		userTags map[string]string
		want     map[string]string
	}{
		{
			name:     "adds Name and ownership tags to the user's tags",
			userTags: map[string]string{"team": "a"},
			want: map[string]string{
				"team": "a", "Name": "web", TagOwnerUID: "uid-1", TagOwnerNamespace: "ns", TagOwnerName: "web", TagCluster: "cluster-1",
			},
		},
		{
			name:     "keeps a Name the user chose",
			userTags: map[string]string{"Name": "custom"},
			want: map[string]string{
				"Name": "custom", TagOwnerUID: "uid-1", TagOwnerNamespace: "ns", TagOwnerName: "web", TagCluster: "cluster-1",
			},
		},
		{
			name:     "ignores user tags under the operator's prefix",
			userTags: map[string]string{TagOwnerUID: "forged", TagCluster: "forged", TagPrefix + "other": "x"},
			want: map[string]string{
				"Name": "web", TagOwnerUID: "uid-1", TagOwnerNamespace: "ns", TagOwnerName: "web", TagCluster: "cluster-1",
			},
		},
		{
			name: "works without user tags",
			want: map[string]string{
				"Name": "web", TagOwnerUID: "uid-1", TagOwnerNamespace: "ns", TagOwnerName: "web", TagCluster: "cluster-1",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DesiredTags(tt.userTags, "ns", "web", "uid-1", "cluster-1"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DesiredTags() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTagDiff(t *testing.T) {
	tests := []struct {
		name       string
		desired    map[string]string
		actual     map[string]string
		managed    []string
		wantSet    map[string]string
		wantDelete []string
	}{
		{
			name:    "nothing to do when actual matches desired",
			desired: map[string]string{"a": "1"},
			actual:  map[string]string{"a": "1"},
			managed: []string{"a"},
		},
		{
			name:    "sets missing and changed tags",
			desired: map[string]string{"a": "1", "b": "2"},
			actual:  map[string]string{"a": "0"},
			wantSet: map[string]string{"a": "1", "b": "2"},
		},
		{
			name:       "deletes a tag the operator managed and no longer wants",
			desired:    map[string]string{"a": "1"},
			actual:     map[string]string{"a": "1", "old": "x"},
			managed:    []string{"a", "old"},
			wantDelete: []string{"old"},
		},
		{
			name:    "never deletes foreign tags",
			desired: map[string]string{"a": "1"},
			actual:  map[string]string{"a": "1", "aws:cloudformation:stack-name": "s", "CostCenter": "42"},
			managed: []string{"a"},
		},
		{
			name:    "does not delete a managed key that is already gone",
			desired: map[string]string{"a": "1"},
			actual:  map[string]string{"a": "1"},
			managed: []string{"a", "gone"},
		},
		{
			name:       "deletes in a stable order and only once per key",
			desired:    map[string]string{},
			actual:     map[string]string{"z": "1", "m": "2", "foreign": "3"},
			managed:    []string{"z", "m", "z"},
			wantDelete: []string{"m", "z"},
		},
		{
			name:    "overwrites a foreign value of a desired key instead of deleting",
			desired: map[string]string{"Name": "web"},
			actual:  map[string]string{"Name": "renamed-by-hand"},
			wantSet: map[string]string{"Name": "web"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotSet, gotDelete := TagDiff(tt.desired, tt.actual, tt.managed)
			if !reflect.DeepEqual(gotSet, tt.wantSet) {
				t.Errorf("toSet = %v, want %v", gotSet, tt.wantSet)
			}
			if !reflect.DeepEqual(gotDelete, tt.wantDelete) {
				t.Errorf("toDelete = %v, want %v", gotDelete, tt.wantDelete)
			}
		})
	}
}

func TestClientToken(t *testing.T) {
	tests := []struct {
		name        string
		uid         string
		recreations int32
		want        string
	}{
		{"drops the dashes of a Kubernetes UID", "3f2a9c1e-1b2c-4d5e-8f90-a1b2c3d4e5f6", 0, "3f2a9c1e1b2c4d5e8f90a1b2c3d4e5f6-0"},
		{"changes with the recreation count", "3f2a9c1e-1b2c-4d5e-8f90-a1b2c3d4e5f6", 3, "3f2a9c1e1b2c4d5e8f90a1b2c3d4e5f6-3"},
		{"truncates long input to 64 characters", strings.Repeat("a", 100), 12, strings.Repeat("a", 61) + "-12"},
		{"drops non-ASCII characters", "é1-2", 1, "12-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClientToken(tt.uid, tt.recreations)
			if got != tt.want {
				t.Errorf("ClientToken() = %q, want %q", got, tt.want)
			}
			if len(got) > 64 {
				t.Errorf("token has %d characters, EC2 allows 64", len(got))
			}
			if again := ClientToken(tt.uid, tt.recreations); again != got {
				t.Errorf("ClientToken is not deterministic: %q then %q", got, again)
			}
		})
	}
}
