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
	"strconv"
	"strings"
)

// typeInfo is what DescribeInstanceTypes reports about one instance type,
// and what launches are validated against (CPU options, credits, hibernation).
type typeInfo struct {
	name  string
	archs []string
	// vcpus, cores and threads are the defaults; validCores and validThreads
	// are the CPU options a launch may ask for. Types that do not support
	// CPU options (T2, previous generation, bare metal) have none.
	vcpus, cores, threads int
	validCores            []int
	validThreads          []int
	memMiB                int
	burstable             bool
	hibernation           bool
	currentGen            bool
	bareMetal             bool
	// hypervisor is "xen" or "nitro", and "" for bare metal.
	hypervisor   string
	manufacturer string
	autoRecovery bool
}

// familyTraits are the properties an instance family shares.
type familyTraits struct {
	manufacturer string
	hypervisor   string
	// threads is the default threads per core: 2 with Intel or AMD SMT, 1 for
	// Graviton and T2.
	threads int
	// memPerVCPU is GiB of memory per vCPU, for families where it is constant.
	memPerVCPU int
	// metalVCPUs is the vCPU count of the family's bare metal sizes.
	metalVCPUs map[string]int
	// allCores: valid core counts are every integer up to the default
	// (sixth generation Intel and later, AMD T3a, Graviton). Otherwise they
	// are 1 for large and even counts above, as for fifth generation Intel.
	allCores     bool
	cpuOptions   bool
	burstable    bool
	hibernation  bool
	currentGen   bool
	autoRecovery bool
}

// typeFamilyTraits describes the families instanceFamilies lists. Sources: the EC2
// User Guide's "Supported CPU options for Amazon EC2 instance types" (cores
// and threads), "Burstable performance instances" (T2, T3, T3a, T4g),
// "Prerequisites for EC2 instance hibernation" (supported families, and no
// bare metal) and the instance type specifications (memory per vCPU).
var typeFamilyTraits = map[string]familyTraits{
	"m1":  {manufacturer: "Intel", hypervisor: "xen", threads: 1},
	"t2":  {manufacturer: "Intel", hypervisor: "xen", threads: 1, burstable: true, hibernation: true, currentGen: true, autoRecovery: true},
	"t3":  {manufacturer: "Intel", hypervisor: "nitro", threads: 2, allCores: true, cpuOptions: true, burstable: true, hibernation: true, currentGen: true, autoRecovery: true},
	"t3a": {manufacturer: "AMD", hypervisor: "nitro", threads: 2, allCores: true, cpuOptions: true, burstable: true, hibernation: true, currentGen: true, autoRecovery: true},
	"t4g": {manufacturer: "AWS", hypervisor: "nitro", threads: 1, allCores: true, cpuOptions: true, burstable: true, hibernation: true, currentGen: true, autoRecovery: true},
	"m5":  {manufacturer: "Intel", hypervisor: "nitro", threads: 2, memPerVCPU: 4, metalVCPUs: map[string]int{"metal": 96}, cpuOptions: true, hibernation: true, currentGen: true, autoRecovery: true},
	"m6i": {manufacturer: "Intel", hypervisor: "nitro", threads: 2, memPerVCPU: 4, metalVCPUs: map[string]int{"metal": 128}, allCores: true, cpuOptions: true, hibernation: true, currentGen: true, autoRecovery: true},
	"m7i": {manufacturer: "Intel", hypervisor: "nitro", threads: 2, memPerVCPU: 4, metalVCPUs: map[string]int{"metal-24xl": 96, "metal-48xl": 192}, allCores: true, cpuOptions: true, hibernation: true, currentGen: true, autoRecovery: true},
	"m7g": {manufacturer: "AWS", hypervisor: "nitro", threads: 1, memPerVCPU: 4, metalVCPUs: map[string]int{"metal": 64}, allCores: true, cpuOptions: true, hibernation: true, currentGen: true, autoRecovery: true},
	"c5":  {manufacturer: "Intel", hypervisor: "nitro", threads: 2, memPerVCPU: 2, metalVCPUs: map[string]int{"metal": 96}, cpuOptions: true, hibernation: true, currentGen: true, autoRecovery: true},
	"c6i": {manufacturer: "Intel", hypervisor: "nitro", threads: 2, memPerVCPU: 2, metalVCPUs: map[string]int{"metal": 128}, allCores: true, cpuOptions: true, hibernation: true, currentGen: true, autoRecovery: true},
	"c7g": {manufacturer: "AWS", hypervisor: "nitro", threads: 1, memPerVCPU: 2, metalVCPUs: map[string]int{"metal": 64}, allCores: true, cpuOptions: true, hibernation: true, currentGen: true, autoRecovery: true},
	"r5":  {manufacturer: "Intel", hypervisor: "nitro", threads: 2, memPerVCPU: 8, metalVCPUs: map[string]int{"metal": 96}, cpuOptions: true, hibernation: true, currentGen: true, autoRecovery: true},
	"r6i": {manufacturer: "Intel", hypervisor: "nitro", threads: 2, memPerVCPU: 8, metalVCPUs: map[string]int{"metal": 128}, allCores: true, cpuOptions: true, hibernation: true, currentGen: true, autoRecovery: true},
}

// burstableSizes are the vCPUs and memory (MiB) of T2, T3, T3a and T4g sizes,
// which do not scale memory with vCPUs.
var burstableSizes = map[string]struct{ t2VCPUs, vcpus, memMiB int }{
	"nano":    {1, 2, 512},
	"micro":   {1, 2, 1024},
	"small":   {1, 2, 2048},
	"medium":  {2, 2, 4096},
	"large":   {2, 2, 8192},
	"xlarge":  {4, 4, 16384},
	"2xlarge": {8, 8, 32768},
}

// m1Sizes are the previous generation M1 sizes: vCPUs and memory (MiB).
var m1Sizes = map[string]struct{ vcpus, memMiB int }{
	"small": {1, 1740}, "medium": {1, 3840}, "large": {2, 7680}, "xlarge": {4, 15360},
}

// maxHibernationMiB is the documented RAM limit for hibernating a Linux
// instance ("can't hibernate a Linux instance that has more than 150 GB of
// RAM"), so larger sizes report hibernationSupported false.
const maxHibernationMiB = 150 * 1024

// lookupTypeInfo returns what EC2 reports about a known instance type.
func lookupTypeInfo(name string) (typeInfo, bool) {
	arch, ok := instanceTypeArch(name)
	if !ok {
		return typeInfo{}, false
	}
	family, size, _ := strings.Cut(name, ".")
	f := typeFamilyTraits[family]
	if f.threads == 0 {
		// A family listed in instanceFamilies without traits here is reported
		// with one thread per core rather than failing.
		f.threads = 1
	}
	ti := typeInfo{
		name: name, archs: []string{arch}, threads: f.threads, burstable: f.burstable, currentGen: f.currentGen,
		hypervisor: f.hypervisor, manufacturer: f.manufacturer, autoRecovery: f.autoRecovery,
	}
	switch {
	case family == "m1":
		ti.vcpus, ti.memMiB = m1Sizes[size].vcpus, m1Sizes[size].memMiB
	case family == "t2":
		ti.vcpus, ti.memMiB = burstableSizes[size].t2VCPUs, burstableSizes[size].memMiB
	case f.burstable:
		ti.vcpus, ti.memMiB = burstableSizes[size].vcpus, burstableSizes[size].memMiB
	case f.metalVCPUs[size] > 0:
		ti.vcpus, ti.bareMetal, ti.hypervisor = f.metalVCPUs[size], true, ""
		ti.memMiB = ti.vcpus * f.memPerVCPU * 1024
	default:
		ti.vcpus = sizeVCPUs(size)
		ti.memMiB = ti.vcpus * f.memPerVCPU * 1024
	}
	if ti.vcpus < ti.threads {
		ti.threads = 1 // a one-vCPU size has one thread per core
	}
	ti.cores = ti.vcpus / ti.threads
	// Small 32-bit capable sizes also list i386, as EC2 does for M1 and T2.
	if (family == "m1" && ti.vcpus == 1) || (family == "t2" && ti.vcpus == 1) {
		ti.archs = []string{"i386", "x86_64"}
	}
	if f.cpuOptions && !ti.bareMetal {
		ti.validCores = validCoreCounts(ti.cores, f.allCores)
		ti.validThreads = []int{1}
		if ti.threads == 2 {
			ti.validThreads = []int{1, 2}
		}
	}
	ti.hibernation = f.hibernation && !ti.bareMetal && ti.memMiB <= maxHibernationMiB
	return ti, true
}

// sizeVCPUs is the vCPU count of a regular size: medium 1, large 2, xlarge 4
// and "Nxlarge" 4N.
func sizeVCPUs(size string) int {
	switch size {
	case "medium":
		return 1
	case "large":
		return 2
	case "xlarge":
		return 4
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(size, "xlarge"))
	return 4 * n
}

// validCoreCounts lists the core counts a type accepts: all of 1..cores, or
// for fifth generation Intel types 1 (on large) and the even counts up to cores.
func validCoreCounts(cores int, all bool) []int {
	var out []int
	for c := 1; c <= cores; c++ {
		if all || c%2 == 0 || cores == 1 {
			out = append(out, c)
		}
	}
	return out
}

// knownTypeNames lists every instance type the simulator knows, sorted.
func knownTypeNames() []string {
	var out []string
	for family, f := range instanceFamilies {
		for _, size := range f.sizes {
			out = append(out, family+"."+size)
		}
	}
	slices.Sort(out)
	return out
}

// creditDefault is the credit option a burstable type launches with when the
// request does not choose one: standard for T2, unlimited for T3, T3a and
// T4g ("Burstable performance instances", EC2 User Guide). Types that are
// not burstable report standard in DescribeInstanceCreditSpecifications.
func creditDefault(instanceType string) string {
	if strings.HasPrefix(instanceType, "t2.") {
		return "standard"
	}
	if ti, ok := lookupTypeInfo(instanceType); ok && ti.burstable {
		return "unlimited"
	}
	return "standard"
}
