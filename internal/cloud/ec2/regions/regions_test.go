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

package regions

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTheRegionListIsTheSDKs compares partitionRegions with the partition list of the
// AWS SDK this module builds with, so that an SDK update that knows new regions makes
// this test fail until the list has them too.
func TestTheRegionListIsTheSDKs(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/aws/aws-sdk-go-v2").Output()
	if err != nil {
		t.Fatalf("locating the AWS SDK module: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "internal/endpoints/awsrulesfn/partitions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Partitions []struct {
			ID      string                     `json:"id"`
			Regions map[string]json.RawMessage `json:"regions"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, p := range file.Partitions {
		for region := range p.Regions {
			// aws-global and the like name the partition's global endpoint, not a region.
			if !strings.HasSuffix(region, "-global") {
				want[p.ID] = append(want[p.ID], region)
			}
		}
		slices.Sort(want[p.ID])
	}
	if len(want) == 0 {
		t.Fatal("no partition read from the SDK: the comparison would prove nothing")
	}
	for id, regions := range want {
		got := slices.Sorted(slices.Values(partitionRegions[id]))
		if !slices.Equal(got, regions) {
			t.Errorf("partition %s: the SDK lists %v, regions.go %v", id, regions, got)
		}
	}
	for id := range partitionRegions {
		if _, ok := want[id]; !ok {
			t.Errorf("regions.go lists partition %s, which the SDK does not know", id)
		}
	}
}
