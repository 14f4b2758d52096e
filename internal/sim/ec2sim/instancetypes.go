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

import "strings"

// defaultInstanceType is EC2's documented default when InstanceType is omitted.
const defaultInstanceType = "m1.small"

// instanceFamilies lists the families the simulator accepts, with their
// architecture and sizes. It is a realistic subset of EC2's catalogue.
var instanceFamilies = map[string]struct {
	arch  string
	sizes []string
}{
	"m1":  {"x86_64", []string{"small", "medium", "large", "xlarge"}},
	"t2":  {"x86_64", []string{"nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"}},
	"t3":  {"x86_64", []string{"nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"}},
	"t3a": {"x86_64", []string{"nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"}},
	"t4g": {"arm64", []string{"nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"}},
	"m5":  {"x86_64", []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "metal"}},
	"m6i": {"x86_64", []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "32xlarge", "metal"}},
	"m7i": {"x86_64", []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge", "metal-24xl", "metal-48xl"}},
	"m7g": {"arm64", []string{"medium", "large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "metal"}},
	"c5":  {"x86_64", []string{"large", "xlarge", "2xlarge", "4xlarge", "9xlarge", "12xlarge", "18xlarge", "24xlarge", "metal"}},
	"c6i": {"x86_64", []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "32xlarge", "metal"}},
	"c7g": {"arm64", []string{"medium", "large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "metal"}},
	"r5":  {"x86_64", []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "metal"}},
	"r6i": {"x86_64", []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "32xlarge", "metal"}},
}

// instanceTypeArch returns the architecture of a known instance type.
func instanceTypeArch(t string) (arch string, ok bool) {
	family, size, found := strings.Cut(t, ".")
	if !found {
		return "", false
	}
	f, ok := instanceFamilies[family]
	if !ok || !contains(f.sizes, size) {
		return "", false
	}
	return f.arch, true
}
