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

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// instanceTypePageSize is the page DescribeInstanceTypes returns when the
// request sets no MaxResults. The API reference documents MaxResults as 5 to
// 100; that an omitted MaxResults yields pages of 100 is our reading of how
// the API behaves, not a documented rule.
const instanceTypePageSize = 100

// describeInstanceTypes implements DescribeInstanceTypes: InstanceType.N,
// a few filters, and MaxResults/NextToken paging over types in name order.
// An unknown type fails the call with InvalidInstanceType, whose message
// ("The following supplied instance types do not exist: [x]") is what EC2
// sends.
func (s *Sim) describeInstanceTypes(p params, x *xmlBuilder) *apiError {
	limit := instanceTypePageSize
	if p.has("MaxResults") {
		n, ok := p.integer("MaxResults")
		if !ok || n < 5 || n > 100 {
			return invalidValue("Value ( %s ) for parameter maxResults is invalid. Expecting a value between 5 and 100.", p.str("MaxResults"))
		}
		limit = n
	}
	after := ""
	if tok := p.str("NextToken"); tok != "" {
		name, ok := decodeTypeToken(tok)
		if !ok {
			return clientErr("InvalidPaginationToken", "Invalid pagination token: %s", tok)
		}
		after = name
	}
	wanted := p.list("InstanceType")
	var missing []string
	for _, t := range wanted {
		if _, ok := lookupTypeInfo(t); !ok {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return clientErr("InvalidInstanceType", "The following supplied instance types do not exist: [%s]", strings.Join(missing, ", "))
	}
	filters := p.filters()
	for _, f := range filters {
		if _, known := instanceTypeFilterField(typeInfo{}, f.Name); !known {
			return invalidValue("The filter '%s' is invalid", f.Name)
		}
	}

	var page []typeInfo
	next := ""
	for _, name := range knownTypeNames() {
		if name <= after || (len(wanted) > 0 && !contains(wanted, name)) {
			continue
		}
		ti, _ := lookupTypeInfo(name)
		if !typeMatches(ti, filters) {
			continue
		}
		if len(page) == limit {
			next = encodeTypeToken(page[len(page)-1].name)
			break
		}
		page = append(page, ti)
	}
	x.open("instanceTypeSet")
	for _, ti := range page {
		writeTypeInfo(x, ti)
	}
	x.close("instanceTypeSet")
	x.leafIf("nextToken", next)
	return nil
}

// typeMatches applies DescribeInstanceTypes filters; each filter's values
// are alternatives, and every filter must match.
func typeMatches(ti typeInfo, filters []filter) bool {
	for _, f := range filters {
		values, _ := instanceTypeFilterField(ti, f.Name)
		matched := false
		for _, v := range values {
			if anyGlob(f.Values, v) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// instanceTypeFilterField returns the values a DescribeInstanceTypes filter
// compares against (names from the API reference), and whether the
// simulator implements the filter.
func instanceTypeFilterField(ti typeInfo, name string) ([]string, bool) {
	switch name {
	case "instance-type":
		return []string{ti.name}, true
	case "current-generation":
		return []string{boolString(ti.currentGen)}, true
	case "hibernation-supported":
		return []string{boolString(ti.hibernation)}, true
	case "burstable-performance-supported":
		return []string{boolString(ti.burstable)}, true
	case "bare-metal":
		return []string{boolString(ti.bareMetal)}, true
	case "hypervisor":
		return []string{ti.hypervisor}, true
	case "processor-info.supported-architecture":
		return ti.archs, true
	case "processor-info.manufacturer":
		return []string{ti.manufacturer}, true
	case "vcpu-info.default-vcpus":
		return []string{strconv.Itoa(ti.vcpus)}, true
	case "vcpu-info.default-cores":
		return []string{strconv.Itoa(ti.cores)}, true
	case "vcpu-info.default-threads-per-core":
		return []string{strconv.Itoa(ti.threads)}, true
	case "memory-info.size-in-mib":
		return []string{strconv.Itoa(ti.memMiB)}, true
	case "supported-usage-class":
		return []string{"on-demand", "spot"}, true
	case "auto-recovery-supported":
		return []string{boolString(ti.autoRecovery)}, true
	}
	return nil, false
}

// writeTypeInfo renders one instanceTypeSet item with the element names of
// the SDK's awsEc2query_deserializeDocumentInstanceTypeInfo.
func writeTypeInfo(x *xmlBuilder, ti typeInfo) {
	x.open("item")
	x.leaf("instanceType", ti.name)
	x.boolLeaf("currentGeneration", ti.currentGen)
	x.open("supportedUsageClasses")
	x.leaf("item", "on-demand")
	x.leaf("item", "spot")
	x.close("supportedUsageClasses")
	x.open("supportedRootDeviceTypes")
	x.leaf("item", "ebs")
	x.close("supportedRootDeviceTypes")
	x.open("supportedVirtualizationTypes")
	x.leaf("item", "hvm")
	x.close("supportedVirtualizationTypes")
	x.boolLeaf("bareMetal", ti.bareMetal)
	x.leafIf("hypervisor", ti.hypervisor)
	x.open("processorInfo")
	x.open("supportedArchitectures")
	for _, a := range ti.archs {
		x.leaf("item", a)
	}
	x.close("supportedArchitectures")
	x.leaf("manufacturer", ti.manufacturer)
	x.close("processorInfo")
	x.open("vCpuInfo")
	x.intLeaf("defaultVCpus", ti.vcpus)
	x.intLeaf("defaultCores", ti.cores)
	x.intLeaf("defaultThreadsPerCore", ti.threads)
	if len(ti.validCores) > 0 {
		writeIntList(x, "validCores", ti.validCores)
		writeIntList(x, "validThreadsPerCore", ti.validThreads)
	}
	x.close("vCpuInfo")
	x.open("memoryInfo")
	x.intLeaf("sizeInMiB", ti.memMiB)
	x.close("memoryInfo")
	x.boolLeaf("instanceStorageSupported", false)
	x.boolLeaf("hibernationSupported", ti.hibernation)
	x.boolLeaf("burstablePerformanceSupported", ti.burstable)
	x.boolLeaf("autoRecoverySupported", ti.autoRecovery)
	x.close("item")
}

// writeIntList renders a list of integers as EC2 does: one item per value.
func writeIntList(x *xmlBuilder, name string, values []int) {
	x.open(name)
	for _, v := range values {
		x.intLeaf("item", v)
	}
	x.close(name)
}

// encodeTypeToken makes an opaque DescribeInstanceTypes paging token that
// resumes after the named type.
func encodeTypeToken(last string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("ec2sim-instance-types:" + last))
}

// decodeTypeToken reverses encodeTypeToken.
func decodeTypeToken(tok string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", false
	}
	return strings.CutPrefix(string(b), "ec2sim-instance-types:")
}
