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

package v1alpha1

// ReplacementFields are the EC2Instance spec fields that an instance cannot take in
// place, as JSON paths ("volumes[]" is each data volume, keyed by deviceName; a path
// ending in "?" is a field whose value may change but which may not be added or
// removed, so only whether it is set needs new instances). For an
// EC2Instance the API server refuses a change to them (the rules in
// ec2instance_spec_types.go and storage_types.go that compare a spec with its
// previous version; a test holds the two to each other). For an EC2InstanceSet a
// change to one of them in the template gives new instances; a change to any other
// field is applied to the existing ones.
//
// userData and userDataFrom are here though an EC2Instance takes them in place
// (stopping the instance): an instance runs its user data at first boot, so a
// set's new user data is meant for new instances, and replacing them a few at a
// time keeps the set available where stopping each would not.
var ReplacementFields = []string{
	"imageId",
	"imageSelector",
	"subnetId",
	"subnetSelector",
	"keyName",
	"userData",
	"userDataFrom",
	"associatePublicIpAddress",
	"privateIpAddress",
	"ipv6AddressCount",
	"ipv6Addresses",
	"availabilityZone",
	"hibernation",
	"spot",
	"region",
	"accountRef",
	"instanceId",
	"rootVolume?",
	"rootVolume.sizeGiB?",
	"rootVolume.type",
	"rootVolume.iops",
	"rootVolume.throughput",
	"rootVolume.encrypted",
	"rootVolume.kmsKeyId",
	"rootVolume.deleteOnTermination",
	"volumes[].snapshotId",
	"volumes[].encrypted",
	"volumes[].kmsKeyId",
}

// StopFields are the fields an instance takes in place but only while stopped (the
// operator stops it, changes them and starts it again: the settings whose plan says
// NeedsStopped in internal/controller/plan). A set applies a template change to them
// a few instances at a time, as its rolling update allows, where it applies other
// in-place changes to every instance at once.
var StopFields = []string{
	"instanceType",
	"cpuOptions",
	"capacityReservation",
	"placement",
	"privateDnsNameOptions",
}
