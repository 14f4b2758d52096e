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
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// describeTypes returns DescribeInstanceTypes' answer for the named types, by name.
func describeTypes(t *testing.T, c *ec2.Client, names ...types.InstanceType) map[types.InstanceType]types.InstanceTypeInfo {
	t.Helper()
	out, err := c.DescribeInstanceTypes(simtest.Ctx(t), &ec2.DescribeInstanceTypesInput{InstanceTypes: names})
	if err != nil {
		t.Fatalf("DescribeInstanceTypes: %v", err)
	}
	m := map[types.InstanceType]types.InstanceTypeInfo{}
	for _, it := range out.InstanceTypes {
		m[it.InstanceType] = it
	}
	return m
}

// The values below are those of the EC2 User Guide's "Supported CPU options"
// tables and the instance type specifications.
func TestDescribeInstanceTypesReportsCatalogue(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 10})
	type want struct {
		arch                   types.ArchitectureType
		vcpus, cores, threads  int32
		validCores, validThrds []int32
		mem                    int64
		hibernation, burstable bool
	}
	cases := map[types.InstanceType]want{
		"t2.micro":  {"x86_64", 1, 1, 1, nil, nil, 1024, true, true},
		"t3.micro":  {"x86_64", 2, 1, 2, []int32{1}, []int32{1, 2}, 1024, true, true},
		"t3.small":  {"x86_64", 2, 1, 2, []int32{1}, []int32{1, 2}, 2048, true, true},
		"t3.medium": {"x86_64", 2, 1, 2, []int32{1}, []int32{1, 2}, 4096, true, true},
		"t3.large":  {"x86_64", 2, 1, 2, []int32{1}, []int32{1, 2}, 8192, true, true},
		"t4g.micro": {"arm64", 2, 2, 1, []int32{1, 2}, []int32{1}, 1024, true, true},
		"t4g.small": {"arm64", 2, 2, 1, []int32{1, 2}, []int32{1}, 2048, true, true},
		"m5.large":  {"x86_64", 2, 1, 2, []int32{1}, []int32{1, 2}, 8192, true, false},
		"m6i.large": {"x86_64", 2, 1, 2, []int32{1}, []int32{1, 2}, 8192, true, false},
		"m7i.large": {"x86_64", 2, 1, 2, []int32{1}, []int32{1, 2}, 8192, true, false},
		"m7g.large": {"arm64", 2, 2, 1, []int32{1, 2}, []int32{1}, 8192, true, false},
		"c7g.large": {"arm64", 2, 2, 1, []int32{1, 2}, []int32{1}, 4096, true, false},
		"r6i.large": {"x86_64", 2, 1, 2, []int32{1}, []int32{1, 2}, 16384, true, false},
		"c5.xlarge": {"x86_64", 4, 2, 2, []int32{2}, []int32{1, 2}, 8192, true, false},
		"m5.metal":  {"x86_64", 96, 48, 2, nil, nil, 393216, false, false},
		"m1.small":  {"x86_64", 1, 1, 1, nil, nil, 1740, false, false},
	}
	var names []types.InstanceType
	for n := range cases {
		names = append(names, n)
	}
	got := describeTypes(t, c, names...)
	if len(got) != len(cases) {
		t.Fatalf("got %d types, want %d", len(got), len(cases))
	}
	for name, w := range cases {
		it := got[name]
		v := it.VCpuInfo
		if !slices.Contains(it.ProcessorInfo.SupportedArchitectures, w.arch) ||
			aws.ToInt32(v.DefaultVCpus) != w.vcpus || aws.ToInt32(v.DefaultCores) != w.cores || aws.ToInt32(v.DefaultThreadsPerCore) != w.threads ||
			!slices.Equal(v.ValidCores, w.validCores) || !slices.Equal(v.ValidThreadsPerCore, w.validThrds) ||
			aws.ToInt64(it.MemoryInfo.SizeInMiB) != w.mem || aws.ToBool(it.HibernationSupported) != w.hibernation ||
			aws.ToBool(it.BurstablePerformanceSupported) != w.burstable {
			t.Errorf("%s = arch %v vcpu %+v mem %d hib %v burst %v", name, it.ProcessorInfo.SupportedArchitectures, *v,
				aws.ToInt64(it.MemoryInfo.SizeInMiB), aws.ToBool(it.HibernationSupported), aws.ToBool(it.BurstablePerformanceSupported))
		}
		if aws.ToBool(it.CurrentGeneration) != (name != "m1.small") || !slices.Equal(it.SupportedUsageClasses, []types.UsageClassType{"on-demand", "spot"}) {
			t.Errorf("%s: currentGeneration %v usage classes %v", name, aws.ToBool(it.CurrentGeneration), it.SupportedUsageClasses)
		}
	}
	// Hibernation needs at most 150 GB of RAM, so large sizes do not support it.
	if big := describeTypes(t, c, "r6i.8xlarge")["r6i.8xlarge"]; aws.ToBool(big.HibernationSupported) {
		t.Error("r6i.8xlarge (256 GiB) reports hibernation support")
	}
}

// An unknown type fails the whole call with EC2's InvalidInstanceType.
func TestDescribeInstanceTypesUnknownType(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 11})
	_, err := c.DescribeInstanceTypes(simtest.Ctx(t), &ec2.DescribeInstanceTypesInput{InstanceTypes: []types.InstanceType{"t3.micro", "i8ge.xlarge"}})
	simtest.WantCode(t, err, "InvalidInstanceType")
	if simtest.ErrMessage(err) != "The following supplied instance types do not exist: [i8ge.xlarge]" {
		t.Fatalf("message = %q", simtest.ErrMessage(err))
	}
}

// Paging with MaxResults and NextToken visits every type exactly once, and
// filters narrow the catalogue.
func TestDescribeInstanceTypesPagingAndFilters(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 12})
	seen := map[types.InstanceType]bool{}
	pages := 0
	p := ec2.NewDescribeInstanceTypesPaginator(c, &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(20)})
	for p.HasMorePages() {
		out, err := p.NextPage(simtest.Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(out.InstanceTypes) > 20 {
			t.Fatalf("page of %d", len(out.InstanceTypes))
		}
		for _, it := range out.InstanceTypes {
			if seen[it.InstanceType] {
				t.Fatalf("%s listed twice", it.InstanceType)
			}
			seen[it.InstanceType] = true
		}
	}
	if len(seen) != len(knownTypeNames()) || pages < 5 {
		t.Fatalf("saw %d types in %d pages, want %d", len(seen), pages, len(knownTypeNames()))
	}
	_, err := c.DescribeInstanceTypes(simtest.Ctx(t), &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(1000)})
	simtest.WantCode(t, err, "InvalidParameterValue")

	out, err := c.DescribeInstanceTypes(simtest.Ctx(t), &ec2.DescribeInstanceTypesInput{Filters: []types.Filter{
		{Name: aws.String("burstable-performance-supported"), Values: []string{"true"}},
		{Name: aws.String("processor-info.supported-architecture"), Values: []string{"arm64"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.InstanceTypes) != 7 {
		t.Fatalf("burstable arm64 types = %d, want the 7 T4g sizes", len(out.InstanceTypes))
	}
	_, err = c.DescribeInstanceTypes(simtest.Ctx(t), &ec2.DescribeInstanceTypesInput{Filters: []types.Filter{{Name: aws.String("no-such-filter"), Values: []string{"x"}}}})
	simtest.WantCode(t, err, "InvalidParameterValue")
}
