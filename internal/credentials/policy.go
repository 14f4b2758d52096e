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

package credentials

// OwnerTagKey is the tag the operator puts on every instance (and, at launch, every
// volume) it owns; the IAM policy uses it to confine destructive calls to those.
const OwnerTagKey = "ec2-operator.dev/owner-uid"

// ClusterTagKey is the tag that names the cluster whose operator created a resource
// (the kube-system Namespace's UID, or --cluster-id). The policy's conditions check its
// value, so that an operator can touch only its own cluster's resources even where
// several clusters share an account and their namespaces and names repeat. Only the
// operator writes it (at creation, or on its own resources of an earlier version, or
// on instances an administrator marked adoptable), so its value is proof of ownership
// without the owner tag. Its key is valid on instances that expose their tags in
// instance metadata, so one condition serves every resource.
const ClusterTagKey = "ec2-operator.dev:cluster"

// ClusterIDPlaceholder stands for the cluster ID in docs/aws-iam-policy.json: replace
// it with the cluster's ID before attaching the policy (docs/aws-iam.md says how).
const ClusterIDPlaceholder = "EC2_OPERATOR_CLUSTER_ID"

// InstanceRolePath is the IAM path of the roles the operator may pass to instances
// (iam:PassRole through an instance profile). Widen PassRoles in your copy of
// the policy to pass roles elsewhere.
const InstanceRolePath = "/ec2-operator/"

// AdoptableTagKey is the tag an administrator puts on an existing instance to let the
// operator adopt it under the minimal policy: CreateTags on an instance the operator
// does not own yet is only allowed when the instance carries this tag.
const AdoptableTagKey = "ec2-operator.dev/adoptable"

// Statement is one statement of an IAM policy, in the shape both IAM and the Cloud
// Credential Operator's AWSProviderSpec use.
type Statement struct {
	// Sid names the statement (IAM only; CCO ignores it).
	Sid string `json:"Sid,omitempty"`
	// Effect is Allow.
	Effect string `json:"Effect"`
	// Action lists the API actions.
	Action []string `json:"Action"`
	// Resource lists the ARNs the actions apply to.
	Resource []string `json:"Resource"`
	// Condition restricts the statement, e.g. to resources that carry the owner tag.
	Condition map[string]map[string]any `json:"Condition,omitempty"`
}

// Policy returns the minimal IAM policy the operator of the cluster clusterID needs.
// docs/aws-iam-policy.json is this policy for ClusterIDPlaceholder (a test keeps them
// equal); the CredentialsRequest asks for it with the cluster's ID.
//
// Describe calls do not support resource-level permissions. Every call that changes
// or destroys an instance, volume, interface or address requires this cluster's ID as
// its cluster tag; launching, creating a volume and allocating an address require it
// in the request itself (tag-on-create). CreateTags is only allowed during those
// creations, on this cluster's resources (never changing their cluster), on the
// resources of an earlier version that carry the owner tag but no cluster tag (adding
// only that tag), or on instances an administrator marked adoptable.
func Policy(clusterID string) []Statement {
	owned := map[string]map[string]any{
		"StringEquals": {"aws:ResourceTag/" + ClusterTagKey: clusterID},
	}
	created := map[string]map[string]any{
		"StringEquals": {"aws:RequestTag/" + ClusterTagKey: clusterID},
	}
	// The order of the statements is part of the policy's text: a change of order
	// changes docs/aws-iam-policy.json and every cluster's CredentialsRequest.
	var policy []Statement
	for _, group := range [][]Statement{
		describeStatements(),
		launchStatements(created),
		tagStatements(owned, clusterID),
		claimStatements(clusterID),
		manageInstanceStatements(owned),
		manageVolumeAndAddressStatements(owned),
		roleAndParameterStatements(),
	} {
		policy = append(policy, group...)
	}
	return policy
}

// describeStatements allow the read-only calls, which EC2 authorizes on no resource.
func describeStatements() []Statement {
	return []Statement{
		{
			Sid:    "Describe",
			Effect: "Allow",
			Action: []string{
				"ec2:DescribeAddresses",
				"ec2:DescribeIamInstanceProfileAssociations",
				"ec2:DescribeImages",
				"ec2:DescribeInstanceAttribute",
				"ec2:DescribeInstanceCreditSpecifications",
				"ec2:DescribeInstanceTypes",
				"ec2:DescribeInstances",
				"ec2:DescribeSecurityGroups",
				"ec2:DescribeSnapshots",
				"ec2:DescribeSubnets",
				"ec2:DescribeVolumes",
			},
			Resource: []string{"*"},
		},
	}
}

// launchStatements allow creating instances, volumes and addresses that carry the
// ownership and cluster tags from the start.
func launchStatements(created map[string]map[string]any) []Statement {
	return []Statement{
		{
			Sid:       "LaunchOwned",
			Effect:    "Allow",
			Action:    []string{"ec2:RunInstances"},
			Resource:  []string{"arn:aws:ec2:*:*:instance/*", "arn:aws:ec2:*:*:volume/*"},
			Condition: created,
		},
		{
			Sid:    "LaunchWith",
			Effect: "Allow",
			Action: []string{"ec2:RunInstances"},
			Resource: []string{
				"arn:aws:ec2:*::image/*",
				"arn:aws:ec2:*:*:capacity-reservation/*",
				"arn:aws:ec2:*:*:dedicated-host/*",
				"arn:aws:ec2:*:*:image/*",
				"arn:aws:ec2:*:*:key-pair/*",
				"arn:aws:ec2:*:*:network-interface/*",
				"arn:aws:ec2:*:*:placement-group/*",
				"arn:aws:ec2:*:*:security-group/*",
				"arn:aws:ec2:*:*:spot-instances-request/*",
				"arn:aws:ec2:*:*:subnet/*",
			},
		},
		{
			// Volumes added after launch and Elastic IPs the operator allocates carry the
			// owner tag from their creation, like instances.
			Sid:       "CreateOwned",
			Effect:    "Allow",
			Action:    []string{"ec2:AllocateAddress", "ec2:CreateVolume"},
			Resource:  []string{"arn:aws:ec2:*:*:volume/*", "arn:aws:ec2:*:*:elastic-ip/*"},
			Condition: created,
		},
		{
			// AllocateAddress also authorizes on the public IPv4 pool an address comes
			// from (spec.elasticIp.publicIpv4Pool).
			Sid:      "AllocateFromPools",
			Effect:   "Allow",
			Action:   []string{"ec2:AllocateAddress"},
			Resource: []string{"arn:aws:ec2:*:*:ipv4pool-ec2/*"},
		},
	}
}

// tagStatements allow tagging at creation, and tagging and untagging this cluster's
// resources.
func tagStatements(owned map[string]map[string]any, clusterID string) []Statement {
	ownedKeepingCluster := map[string]map[string]any{
		"StringEquals":         owned["StringEquals"],
		"StringEqualsIfExists": {"aws:RequestTag/" + ClusterTagKey: clusterID},
	}
	return []Statement{
		{
			Sid:    "TagOnCreate",
			Effect: "Allow",
			Action: []string{"ec2:CreateTags"},
			Resource: []string{
				"arn:aws:ec2:*:*:elastic-ip/*",
				"arn:aws:ec2:*:*:instance/*",
				"arn:aws:ec2:*:*:network-interface/*",
				"arn:aws:ec2:*:*:spot-instances-request/*",
				"arn:aws:ec2:*:*:volume/*",
			},
			Condition: map[string]map[string]any{
				"StringEquals": {"ec2:CreateAction": []string{"AllocateAddress", "CreateVolume", "RunInstances"}},
			},
		},
		{
			// A tag of this cluster's resources may change, but never the cluster tag
			// to another cluster's.
			Sid:       "TagOwned",
			Effect:    "Allow",
			Action:    []string{"ec2:CreateTags"},
			Resource:  []string{"arn:aws:ec2:*:*:elastic-ip/*", "arn:aws:ec2:*:*:instance/*", "arn:aws:ec2:*:*:volume/*"},
			Condition: ownedKeepingCluster,
		},
		{
			Sid:       "UntagOwned",
			Effect:    "Allow",
			Action:    []string{"ec2:DeleteTags"},
			Resource:  []string{"arn:aws:ec2:*:*:elastic-ip/*", "arn:aws:ec2:*:*:instance/*", "arn:aws:ec2:*:*:volume/*"},
			Condition: owned,
		},
	}
}

// claimStatements allow giving this cluster's tag to resources that do not carry it
// yet: an earlier version's, and instances an administrator marked adoptable.
func claimStatements(clusterID string) []Statement {
	return []Statement{
		{
			// Resources an earlier version created carry the owner tags but no cluster
			// tag: the operator adds this cluster's tag, and only that, to those of its
			// objects' UIDs. Remove this statement once every resource has the tag
			// (docs/aws-iam.md).
			Sid:    "TagLegacy",
			Effect: "Allow",
			Action: []string{"ec2:CreateTags"},
			Resource: []string{
				"arn:aws:ec2:*:*:elastic-ip/*", "arn:aws:ec2:*:*:instance/*",
				"arn:aws:ec2:*:*:network-interface/*", "arn:aws:ec2:*:*:volume/*",
			},
			Condition: map[string]map[string]any{
				"Null":                      {"aws:ResourceTag/" + OwnerTagKey: "false", "aws:ResourceTag/" + ClusterTagKey: "true"},
				"StringEquals":              {"aws:RequestTag/" + ClusterTagKey: clusterID},
				"ForAllValues:StringEquals": {"aws:TagKeys": []string{ClusterTagKey}},
			},
		},
		{
			Sid:      "TagAdoptable",
			Effect:   "Allow",
			Action:   []string{"ec2:CreateTags"},
			Resource: []string{"arn:aws:ec2:*:*:instance/*", "arn:aws:ec2:*:*:volume/*"},
			Condition: map[string]map[string]any{
				"StringEquals": {"aws:ResourceTag/" + AdoptableTagKey: "true", "aws:RequestTag/" + ClusterTagKey: clusterID},
			},
		},
	}
}

// manageInstanceStatements allow changing, stopping and terminating this cluster's
// instances, and what those calls also authorize on.
func manageInstanceStatements(owned map[string]map[string]any) []Statement {
	return []Statement{
		{
			Sid:    "ManageInstances",
			Effect: "Allow",
			Action: []string{
				"ec2:AssociateIamInstanceProfile",
				"ec2:DisassociateIamInstanceProfile",
				"ec2:ModifyInstanceAttribute",
				"ec2:ModifyInstanceCapacityReservationAttributes",
				"ec2:ModifyInstanceCpuOptions",
				"ec2:ModifyInstanceCreditSpecification",
				"ec2:ModifyInstanceMaintenanceOptions",
				"ec2:ModifyInstanceMetadataOptions",
				"ec2:ModifyInstancePlacement",
				"ec2:ModifyPrivateDnsNameOptions",
				"ec2:MonitorInstances",
				"ec2:ReplaceIamInstanceProfileAssociation",
				"ec2:StartInstances",
				"ec2:StopInstances",
				"ec2:TerminateInstances",
				"ec2:UnmonitorInstances",
			},
			Resource:  []string{"arn:aws:ec2:*:*:instance/*"},
			Condition: owned,
		},
		{
			// Changing an instance's security groups also authorizes on the groups.
			Sid:      "ChangeGroups",
			Effect:   "Allow",
			Action:   []string{"ec2:ModifyInstanceAttribute"},
			Resource: []string{"arn:aws:ec2:*:*:security-group/*"},
		},
		{
			// Moving an instance to a Capacity Reservation also authorizes on the
			// reservation, which the user names,
			// and moving it to a placement group or a Dedicated Host on those.
			Sid:    "UsePlacement",
			Effect: "Allow",
			Action: []string{"ec2:ModifyInstanceCapacityReservationAttributes", "ec2:ModifyInstancePlacement"},
			Resource: []string{
				"arn:aws:ec2:*:*:capacity-reservation/*",
				"arn:aws:ec2:*:*:dedicated-host/*",
				"arn:aws:ec2:*:*:placement-group/*",
			},
		},
		{
			// Spot requests carry no owner tag (only instances and volumes are tagged
			// at launch); cancelling a request never touches an instance, and the
			// operator cancels only the request of an instance it owns, before
			// terminating or replacing it, so that EC2 does not relaunch it.
			Sid:      "CancelSpot",
			Effect:   "Allow",
			Action:   []string{"ec2:CancelSpotInstanceRequests"},
			Resource: []string{"arn:aws:ec2:*:*:spot-instances-request/*"},
		},
	}
}

// manageVolumeAndAddressStatements allow attaching, changing and deleting this
// cluster's volumes, and managing the addresses of its instances.
func manageVolumeAndAddressStatements(owned map[string]map[string]any) []Statement {
	return []Statement{
		{
			// Attaching and detaching authorize on the volume and on the instance; both
			// must be the operator's.
			Sid:       "ManageVolumes",
			Effect:    "Allow",
			Action:    []string{"ec2:AttachVolume", "ec2:DeleteVolume", "ec2:DetachVolume", "ec2:ModifyVolume"},
			Resource:  []string{"arn:aws:ec2:*:*:instance/*", "arn:aws:ec2:*:*:volume/*"},
			Condition: owned,
		},
		{
			// An Elastic IP named by allocationId is the user's, not tagged by the
			// operator: associating it is allowed whatever its tags, but only with the
			// operator's own instances and interfaces (next statement). The operator
			// never takes an address from another association (AllowReassociation
			// false).
			Sid:      "AssociateAddresses",
			Effect:   "Allow",
			Action:   []string{"ec2:AssociateAddress", "ec2:DisassociateAddress"},
			Resource: []string{"arn:aws:ec2:*:*:elastic-ip/*"},
		},
		{
			Sid:       "AssociateWithOwned",
			Effect:    "Allow",
			Action:    []string{"ec2:AssociateAddress", "ec2:DisassociateAddress"},
			Resource:  []string{"arn:aws:ec2:*:*:instance/*", "arn:aws:ec2:*:*:network-interface/*"},
			Condition: owned,
		},
		{
			// Secondary private addresses of an instance's primary interface, which
			// is tagged at launch with the instance's owner tag.
			Sid:       "ManageInterfaceAddresses",
			Effect:    "Allow",
			Action:    []string{"ec2:AssignPrivateIpAddresses", "ec2:UnassignPrivateIpAddresses"},
			Resource:  []string{"arn:aws:ec2:*:*:network-interface/*"},
			Condition: owned,
		},
		{
			Sid:       "ReleaseAddresses",
			Effect:    "Allow",
			Action:    []string{"ec2:ReleaseAddress"},
			Resource:  []string{"arn:aws:ec2:*:*:elastic-ip/*"},
			Condition: owned,
		},
	}
}

// roleAndParameterStatements allow what a launch needs beyond EC2: passing an
// instance role, and reading the SSM parameter an image is named by.
func roleAndParameterStatements() []Statement {
	return []Statement{
		{
			Sid:      "PassRoles",
			Effect:   "Allow",
			Action:   []string{"iam:PassRole"},
			Resource: []string{"arn:aws:iam::*:role" + InstanceRolePath + "*"},
			Condition: map[string]map[string]any{
				"StringEquals": {"iam:PassedToService": "ec2.amazonaws.com"},
			},
		},
		{
			// EC2 reads a resolve:ssm: image's parameter with the caller's permission:
			// AWS's public AMI parameters; widen it for parameters of your own.
			Sid:      "ResolveSSM",
			Effect:   "Allow",
			Action:   []string{"ssm:GetParameters"},
			Resource: []string{"arn:aws:ssm:*::parameter/aws/service/*"},
		},
	}
}
