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

package guardrail

// Decision is how the guardrails apply to one method of ec2.Client.
type Decision int

const (
	// Read changes nothing in AWS; it is sent as it is.
	Read Decision = iota
	// Hint calls nothing in EC2 (batching and pacing hints).
	Hint
	// Checked: the request's values are checked against the guardrails (and the
	// region), and a request outside them is refused.
	Checked
	// RegionOnly: a change no guardrail field covers; it is refused in a region the
	// account does not allow.
	RegionOnly
	// Ends: the end of something (a stop, a termination, a release, a deletion, a
	// detachment, a tag removal), never refused: guardrails bound what is asked for,
	// and tightening them must neither strand a deletion nor leak what exists.
	Ends
)

// Decisions says, for every method of ec2.Client, how the guardrails apply to it. A
// test fails when a method of the interface has no entry, so that a method added
// later cannot skip the guardrails unnoticed.
var Decisions = map[string]Decision{
	"RunInstance": Checked, "RunInstances": Checked, "ModifyInstanceType": Checked, "ModifySecurityGroups": Checked,
	"SetIAMInstanceProfile": Checked, "SetCapacityReservation": Checked, "SetPlacement": Checked,
	"CreateVolume": Checked, "ModifyVolume": Checked, "ResizeVolume": Checked, "AllocateAddress": Checked,

	// Starting an instance asks for it to run again, in the region it is in; the
	// settings below have no guardrail field. AttachVolume, AssociateAddress and
	// CreateTags are also refused on a resource another object or cluster owns
	// (ownership.go), and AssociateAddress, under guardrails, on an address the
	// operator did not allocate that an administrator did not tag adoptable.
	"StartInstance": RegionOnly, "ModifyTerminationProtection": RegionOnly, "ModifyUserData": RegionOnly,
	"ModifyMetadataOptions": RegionOnly, "SetDetailedMonitoring": RegionOnly, "SetSourceDestCheck": RegionOnly,
	"SetStopProtection": RegionOnly, "SetShutdownBehavior": RegionOnly, "SetAutoRecovery": RegionOnly,
	"SetPrivateDNSNameOptions": RegionOnly, "SetCPUOptions": RegionOnly, "SetCreditSpecification": RegionOnly,
	"AttachVolume": RegionOnly, "SetDeleteOnTermination": RegionOnly, "AssociateAddress": RegionOnly,
	"SetSecondaryPrivateIPCount": RegionOnly, "CreateTags": RegionOnly,

	"StopInstance": Ends, "HibernateInstance": Ends, "TerminateInstance": Ends, "CancelSpotRequest": Ends,
	"DetachVolume": Ends, "DeleteVolume": Ends, "DisassociateAddress": Ends, "ReleaseAddress": Ends,
	"DeleteTags": Ends,

	"GetInstance": Read, "FindInstances": Read, "OwnedInstances": Read, "GetInstanceAttributes": Read,
	"GetLifecycleAttributes": Read, "GetCreditSpecification": Read, "DescribeVolumes": Read,
	"FindVolumes": Read, "DescribeSnapshot": Read, "GetVolumeSize": Read, "DescribeAddresses": Read, "OwnedAddresses": Read,
	"FindSubnets": Read, "FindSecurityGroups": Read, "FindImages": Read, "DescribeImage": Read,
	"InstanceType": Read,

	"LaunchTurn": Hint, "LaunchBacklog": Hint, "ChangedElsewhere": Hint, "ExpectLookups": Hint,
}
