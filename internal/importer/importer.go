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

// Package importer turns instances made outside Kubernetes (by Terraform, the console,
// another tool) into EC2Instance objects that describe them as they are: the import
// command (cmd/kubectl-ec2) writes them out for review and `kubectl apply`. It reads
// EC2 and never changes it.
package importer

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/adoption"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// Options say how the objects are written.
type Options struct {
	// Namespace is the objects' namespace.
	Namespace string
	// Region is written into spec.region, so that the objects find their instances
	// whatever the operator's default region is.
	Region string
	// Account, when set, is the AWSAccount the objects act through (spec.accountRef).
	Account string
	// Policy is the management policy; empty means Observe: an import is for looking
	// first, and managing is a later, deliberate switch.
	Policy computev1alpha1.ManagementPolicy
	// DeletionPolicy is the deletion policy; empty means Retain, so that deleting an
	// imported object never terminates what it was imported from.
	DeletionPolicy computev1alpha1.DeletionPolicy
}

// Skipped is an instance that was selected but is not written, and why.
type Skipped struct {
	InstanceID string
	Reason     string
}

// Result is what an import found.
type Result struct {
	Objects []computev1alpha1.EC2Instance
	Skipped []Skipped
}

// AnnotationImportedFrom records on each object the instance it was imported from.
const AnnotationImportedFrom = "compute.ec2-operator.dev/imported-from"

// Import lists the instances the query selects and describes each one as an
// EC2Instance (adoption.SpecFromInstance). Instances some EC2Instance already owns, and
// instances another controller manages (an Auto Scaling group, Karpenter, Cluster API,
// ACK, an EKS node group), are skipped with the reason: a second owner would fight
// the first. Its EC2 calls are Describe calls only.
func Import(ctx context.Context, inv ec2.Inventory, q ec2.InventoryQuery, o Options) (*Result, error) {
	insts, err := inv.ListInstances(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("listing instances: %w", err)
	}
	res := &Result{Skipped: missing(q.IDs, insts)}
	var kept []ec2.Instance
	for _, inst := range insts {
		if why := managedElsewhere(inst.Tags); why != "" {
			res.Skipped = append(res.Skipped, Skipped{InstanceID: inst.ID, Reason: why})
			continue
		}
		kept = append(kept, inst)
	}
	facts, err := readFacts(ctx, inv, kept)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, f := range facts {
		res.Objects = append(res.Objects, objectFor(f, o, nameFor(f.Instance, used)))
	}
	return res, nil
}

// readFacts reads, for the instances to write, what DescribeInstances does not say:
// termination protection (one call each), the Spot requests' interruption behaviour
// and the Elastic IPs (one call each for all).
func readFacts(ctx context.Context, inv ec2.Inventory, insts []ec2.Instance) ([]adoption.Facts, error) {
	var spotIDs, ids []string
	for _, inst := range insts {
		ids = append(ids, inst.ID)
		if inst.SpotRequestID != "" {
			spotIDs = append(spotIDs, inst.SpotRequestID)
		}
	}
	behaviors, err := inv.SpotInterruptionBehaviors(ctx, spotIDs)
	if err != nil {
		return nil, fmt.Errorf("describing Spot requests: %w", err)
	}
	eips, err := inv.ElasticIPsByInstance(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("describing Elastic IPs: %w", err)
	}
	out := make([]adoption.Facts, 0, len(insts))
	for i := range insts {
		inst := &insts[i]
		attrs, err := inv.GetInstanceAttributes(ctx, inst.ID)
		if err != nil {
			return nil, fmt.Errorf("reading the attributes of %s: %w", inst.ID, err)
		}
		// The user data is never written out: it may hold secrets, and the manifest
		// is a file users commit.
		attrs.UserData = ""
		out = append(out, adoption.Facts{Instance: inst, Attributes: attrs,
			SpotInterruptionBehavior: behaviors[inst.SpotRequestID], ElasticIPAllocationID: eips[inst.ID]})
	}
	return out, nil
}

// objectFor is the object for one instance.
func objectFor(f adoption.Facts, o Options, name string) computev1alpha1.EC2Instance {
	spec := adoption.SpecFromInstance(f)
	spec.ManagementPolicy = o.Policy
	if spec.ManagementPolicy == "" {
		spec.ManagementPolicy = computev1alpha1.ManagementPolicyObserve
	}
	spec.DeletionPolicy = o.DeletionPolicy
	if spec.DeletionPolicy == "" {
		spec.DeletionPolicy = computev1alpha1.DeletionPolicyRetain
	}
	spec.Region = o.Region
	if o.Account != "" {
		spec.AccountRef = &computev1alpha1.AccountReference{Name: o.Account}
	}
	return computev1alpha1.EC2Instance{
		TypeMeta: metav1.TypeMeta{APIVersion: computev1alpha1.GroupVersion.String(), Kind: "EC2Instance"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.Namespace,
			Annotations: map[string]string{AnnotationImportedFrom: f.Instance.ID}},
		Spec: spec,
	}
}

// missing lists the IDs asked for that the listing did not return.
func missing(asked []string, found []ec2.Instance) []Skipped {
	have := map[string]bool{}
	for _, inst := range found {
		have[inst.ID] = true
	}
	var out []Skipped
	for _, id := range asked {
		if !have[id] {
			out = append(out, Skipped{InstanceID: id, Reason: "not found among the live instances the query selects"})
		}
	}
	return out
}

// managedElsewhere says which owner an instance's tags name, or "".
func managedElsewhere(tags map[string]string) string {
	if uid := ec2.OwnerTag(tags, ec2.TagOwnerUID); uid != "" {
		return fmt.Sprintf("managed by EC2Instance %s/%s (uid %s)",
			ec2.OwnerTag(tags, ec2.TagOwnerNamespace), ec2.OwnerTag(tags, ec2.TagOwnerName), uid)
	}
	if cluster, ok := ec2.LookupOwnerTag(tags, ec2.TagCluster); ok {
		return "claimed by the ec2-operator of cluster " + cluster
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, m := range otherControllers {
			if m.matches(k) {
				return "managed by " + m.name + " (tag " + k + "): it would replace or change the instance behind the operator's back"
			}
		}
	}
	return ""
}

// otherControllers are the controllers that tag the instances they manage.
var otherControllers = []struct {
	name    string
	matches func(key string) bool
}{
	{"an Auto Scaling group", exact("aws:autoscaling:groupName")},
	{"Karpenter", prefix("karpenter.sh/")},
	{"Cluster API Provider AWS", prefix("sigs.k8s.io/cluster-api-provider-aws/")},
	{"an EKS managed node group", exact("eks:nodegroup-name")},
	{"ACK", prefix("services.k8s.aws/")},
	{"an EC2 Fleet or Spot Fleet", func(k string) bool { return k == "aws:ec2:fleet-id" || k == "aws:ec2spot:fleet-request-id" }},
	{"CloudFormation", exact("aws:cloudformation:stack-id")},
}

func exact(want string) func(string) bool { return func(k string) bool { return k == want } }
func prefix(p string) func(string) bool {
	return func(k string) bool { return strings.HasPrefix(k, p) }
}

// nameFor is the object's name: the instance's Name tag made a DNS label, unless
// that is empty or taken, then the instance ID (always a valid name).
func nameFor(inst *ec2.Instance, used map[string]bool) string {
	name := dnsLabel(inst.Tags[ec2.TagName])
	if name == "" || used[name] {
		name = inst.ID
	}
	used[name] = true
	return name
}

var notLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// dnsLabel lowercases s and keeps what a DNS-1123 label allows, at most 63
// characters, starting and ending with an alphanumeric.
func dnsLabel(s string) string {
	s = notLabel.ReplaceAllString(strings.ToLower(s), "-")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-")
}
