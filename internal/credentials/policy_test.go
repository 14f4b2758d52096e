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

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// callsInSource lists the EC2 API operations the client layer calls, read from its
// source (c.api.Operation( and NewOperationPaginator), so that a new call without a
// permission, or a permission for a call that was removed, fails this test.
func callsInSource(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(testenv.ProjectRoot(), "internal", "cloud", "ec2")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`\bapi\.([A-Z][A-Za-z]+)\(|\bNew([A-Z][A-Za-z]+)Paginator\(`)
	seen := map[string]bool{}
	for _, f := range files {
		// The import command's listings run with the user's credentials, never the
		// operator's (internal/cloud/ec2/inventory.go).
		if strings.HasSuffix(f, "_test.go") || filepath.Base(f) == "inventory.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			seen["ec2:"+m[1]+m[2]] = true
		}
	}
	if len(seen) < 10 {
		t.Fatalf("found only %d EC2 calls in %s; the pattern no longer matches the client's code", len(seen), dir)
	}
	out := make([]string, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	return out
}

// requiredActions are the calls the operator makes: the EC2 operations of the client
// layer, plus iam:PassRole (RunInstances with an instance profile) and
// ssm:GetParameters (EC2 resolves resolve:ssm: images with the caller's permission).
func requiredActions(t *testing.T) []string {
	return append(callsInSource(t), "iam:PassRole", "ssm:GetParameters")
}

// testCluster is the cluster ID of the policy under test.
const testCluster = "0b6a4d1e-cluster"

func TestPolicyGrantsEveryCallTheOperatorMakes(t *testing.T) {
	granted := map[string]bool{}
	for _, st := range Policy(testCluster) {
		for _, a := range st.Action {
			if strings.Contains(a, "*") {
				t.Errorf("statement %s uses a wildcard action %s", st.Sid, a)
			}
			granted[a] = true
		}
	}
	required := requiredActions(t)
	for _, a := range required {
		if !granted[a] {
			t.Errorf("the policy does not grant %s", a)
		}
	}
	for a := range granted {
		found := false
		for _, r := range required {
			found = found || r == a
		}
		if !found {
			t.Errorf("the policy grants %s, which the operator does not call", a)
		}
	}
}

// TestDestructiveCallsRequireThisClustersTag: terminating, stopping, modifying and
// untagging are only allowed on resources whose cluster tag holds this cluster's ID;
// only the operator writes that tag (the CreateTags checks below).
func TestDestructiveCallsRequireThisClustersTag(t *testing.T) {
	destructive := map[string]bool{
		"ec2:TerminateInstances": true, "ec2:StopInstances": true, "ec2:StartInstances": true,
		"ec2:ModifyInstanceMetadataOptions": true, "ec2:DeleteTags": true, "ec2:ModifyVolume": true,
		"ec2:DisassociateIamInstanceProfile": true, "ec2:AssociateIamInstanceProfile": true,
		"ec2:ReplaceIamInstanceProfileAssociation": true, "ec2:MonitorInstances": true, "ec2:UnmonitorInstances": true,
		"ec2:AttachVolume": true, "ec2:DetachVolume": true, "ec2:DeleteVolume": true, "ec2:ReleaseAddress": true,
		"ec2:ModifyInstanceCreditSpecification": true, "ec2:ModifyInstanceMaintenanceOptions": true, "ec2:ModifyPrivateDnsNameOptions": true,
		"ec2:ModifyInstanceCpuOptions": true, "ec2:AssignPrivateIpAddresses": true, "ec2:UnassignPrivateIpAddresses": true,
	}
	clusterKey := ClusterTagKey
	for _, st := range Policy(testCluster) {
		for _, a := range st.Action {
			onInstances := containsARN(st.Resource, ":instance/")
			if !destructive[a] && !((a == "ec2:ModifyInstanceAttribute" || a == "ec2:ModifyInstanceCapacityReservationAttributes" || a == "ec2:ModifyInstancePlacement") && onInstances) {
				continue
			}
			if st.Condition["StringEquals"]["aws:ResourceTag/"+clusterKey] != testCluster {
				t.Errorf("statement %s allows %s on resources of any cluster: %v", st.Sid, a, st.Condition)
			}
		}
		if containsAction(st.Action, "ec2:CreateTags") && len(st.Condition) == 0 {
			t.Errorf("statement %s allows CreateTags unconditionally", st.Sid)
		}
		if containsAction(st.Action, "ec2:RunInstances") && containsARN(st.Resource, ":instance/") &&
			st.Condition["StringEquals"]["aws:RequestTag/"+clusterKey] != testCluster {
			t.Errorf("statement %s launches instances without this cluster's tag in the request", st.Sid)
		}
		// Creating volumes and allocating addresses must tag them as the operator's.
		for _, a := range []string{"ec2:CreateVolume", "ec2:AllocateAddress"} {
			if containsAction(st.Action, a) && (containsARN(st.Resource, ":volume/") || containsARN(st.Resource, ":elastic-ip/")) &&
				st.Condition["StringEquals"]["aws:RequestTag/"+clusterKey] != testCluster {
				t.Errorf("statement %s allows %s without this cluster's tag in the request", st.Sid, a)
			}
		}
		// Associating an address is only allowed with the operator's own instances and
		// interfaces.
		if containsAction(st.Action, "ec2:AssociateAddress") && (containsARN(st.Resource, ":instance/") || containsARN(st.Resource, ":network-interface/")) &&
			st.Condition["StringEquals"]["aws:ResourceTag/"+clusterKey] != testCluster {
			t.Errorf("statement %s associates addresses with instances or interfaces the operator does not own", st.Sid)
		}
		if containsAction(st.Action, "ec2:CreateTags") && !tagsOnlyThisCluster(st, clusterKey) {
			t.Errorf("statement %s lets CreateTags set another cluster's tag: %v", st.Sid, st.Condition)
		}
	}
}

// tagsOnlyThisCluster reports whether a CreateTags statement can only ever write this
// cluster's ID into the cluster tag: tagging at creation (the creating call's own
// statement checks the request), or a condition on the requested cluster tag.
func tagsOnlyThisCluster(st Statement, clusterKey string) bool {
	if _, atCreation := st.Condition["StringEquals"]["ec2:CreateAction"]; atCreation {
		return true
	}
	key := "aws:RequestTag/" + clusterKey
	return st.Condition["StringEquals"][key] == testCluster || st.Condition["StringEqualsIfExists"][key] == testCluster
}

// TestTheLegacyTaggingStatementAddsOnlyTheClusterTag: resources of an earlier version
// (owner tag, no cluster tag) may get this cluster's tag and nothing else.
func TestTheLegacyTaggingStatementAddsOnlyTheClusterTag(t *testing.T) {
	for _, st := range Policy(testCluster) {
		if st.Sid != "TagLegacy" {
			continue
		}
		keys, _ := st.Condition["ForAllValues:StringEquals"]["aws:TagKeys"].([]string)
		if len(st.Action) != 1 || st.Action[0] != "ec2:CreateTags" || len(keys) != 1 || keys[0] != ClusterTagKey ||
			st.Condition["Null"]["aws:ResourceTag/"+ClusterTagKey] != "true" || st.Condition["Null"]["aws:ResourceTag/"+OwnerTagKey] != "false" {
			t.Errorf("statement %+v", st)
		}
		return
	}
	t.Error("no statement lets the operator tag its earlier resources with the cluster")
}

// TestPassRoleAndSSMAreNarrowed: roles only under the operator's path, passed only
// to EC2; parameters only AWS's public ones.
func TestPassRoleAndSSMAreNarrowed(t *testing.T) {
	for _, st := range Policy(testCluster) {
		switch {
		case containsAction(st.Action, "iam:PassRole"):
			if len(st.Resource) != 1 || st.Resource[0] != "arn:aws:iam::*:role/ec2-operator/*" ||
				st.Condition["StringEquals"]["iam:PassedToService"] != "ec2.amazonaws.com" {
				t.Errorf("PassRole: %v %v", st.Resource, st.Condition)
			}
		case containsAction(st.Action, "ssm:GetParameters"):
			if len(st.Resource) != 1 || st.Resource[0] != "arn:aws:ssm:*::parameter/aws/service/*" {
				t.Errorf("GetParameters: %v", st.Resource)
			}
		}
	}
}

// TestTheCredentialsRequestNamesThisClustersID: the request the operator makes at
// run time carries its cluster's ID, never the documentation's placeholder.
func TestTheCredentialsRequestNamesThisClustersID(t *testing.T) {
	opts := Options{Namespace: "ec2-operator-system", RequestNamespace: "openshift-cloud-credential-operator", RequestName: "r", SecretName: "s",
		ClusterID: testCluster}
	data, err := json.Marshal(desiredRequest(opts).Object)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), ClusterIDPlaceholder) || !strings.Contains(string(data), `"aws:ResourceTag/`+ClusterTagKey+`":"`+testCluster+`"`) {
		t.Errorf("the request's conditions do not name cluster %s: %s", testCluster, data)
	}
}

func containsAction(list []string, a string) bool {
	for _, e := range list {
		if e == a {
			return true
		}
	}
	return false
}

func containsARN(list []string, part string) bool {
	for _, e := range list {
		if strings.Contains(e, part) {
			return true
		}
	}
	return false
}

// TestThePolicyFitsAManagedPolicy: IAM counts a managed policy's characters without
// white space and refuses more than 6,144 (IAM and AWS STS quotas); administrators
// attach this one as a managed policy (docs/aws-iam.md). A cluster ID is a UID, 36
// characters, as long as the placeholder or longer: count with a real one.
func TestThePolicyFitsAManagedPolicy(t *testing.T) {
	data, err := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": Policy("6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b")})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(data); n > 6144 {
		t.Errorf("the policy has %d characters without white space; IAM allows 6,144 in a managed policy", n)
	}
}

// TestPolicyDocumentIsThePolicy keeps docs/aws-iam-policy.json (what administrators
// attach to the role) equal to what the CredentialsRequest asks for.
func TestPolicyDocumentIsThePolicy(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.ProjectRoot(), "docs", "aws-iam-policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk, want map[string]any
	if err := json.Unmarshal(data, &onDisk); err != nil {
		t.Fatalf("docs/aws-iam-policy.json: %v", err)
	}
	wantJSON, _ := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": Policy(ClusterIDPlaceholder)})
	_ = json.Unmarshal(wantJSON, &want)
	if !equality.Semantic.DeepEqual(onDisk, want) {
		t.Errorf("docs/aws-iam-policy.json differs from credentials.Policy():\nwant %s", wantJSON)
	}
}

func TestTheEventsQueueStatementNamesOnlyThatQueue(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https://sqs.eu-west-1.amazonaws.com/123456789012/ec2-operator-events", "arn:aws:sqs:eu-west-1:123456789012:ec2-operator-events"},
		{"https://vpce-0123.sqs.us-east-1.vpce.amazonaws.com/123456789012/q", "arn:aws:sqs:*:123456789012:q"},
	} {
		st, ok := EventsQueueStatement(tc.url)
		if !ok || len(st.Resource) != 1 || st.Resource[0] != tc.want || !containsAction(st.Action, "sqs:ReceiveMessage") ||
			!containsAction(st.Action, "sqs:DeleteMessage") || len(st.Action) != 2 {
			t.Errorf("%s: %+v, %v; want only receive and delete on %s", tc.url, st, ok, tc.want)
		}
	}
	for _, bad := range []string{"", "not a url", "https://sqs.us-east-1.amazonaws.com/"} {
		if _, ok := EventsQueueStatement(bad); ok {
			t.Errorf("%q gave a statement", bad)
		}
	}
}

func TestTheCredentialsRequestAsksForTheEventsQueueOnlyWhenOneIsSet(t *testing.T) {
	queue := "https://sqs.us-east-1.amazonaws.com/123456789012/ec2-operator-events"
	has := func(opts Options) bool {
		req := desiredRequest(opts)
		entries, _, _ := unstructured.NestedSlice(req.Object, "spec", "providerSpec", "statementEntries")
		for _, e := range entries {
			if e.(map[string]any)["resource"] == "arn:aws:sqs:us-east-1:123456789012:ec2-operator-events" {
				return true
			}
		}
		return false
	}
	opts := Options{Namespace: "ec2-operator-system", RequestNamespace: "openshift-cloud-credential-operator", RequestName: "r", SecretName: "s"}
	if has(opts) {
		t.Error("the request asks for a queue although none is set")
	}
	opts.EventsQueueURL = queue
	if !has(opts) {
		t.Error("the request does not ask for the events queue")
	}
}

func TestTheCredentialsRequestAsksToAssumeExactlyTheAccountRolesGiven(t *testing.T) {
	t.Setenv(AccountRoleARNsEnv, " arn:aws:iam::222222222222:role/ec2-operator, arn:aws:iam::*:role/team-*-ec2 ,")
	roles := AccountRoleARNsFromEnv()
	if len(roles) != 2 || roles[1] != "arn:aws:iam::*:role/team-*-ec2" {
		t.Fatalf("AccountRoleARNsFromEnv = %q", roles)
	}
	assumable := func(opts Options) []string {
		var out []string
		entries, _, _ := unstructured.NestedSlice(desiredRequest(opts).Object, "spec", "providerSpec", "statementEntries")
		for _, e := range entries {
			entry := e.(map[string]any)
			if containsAction(toStrings(entry["action"]), "sts:AssumeRole") {
				out = append(out, entry["resource"].(string))
			}
		}
		return out
	}
	opts := Options{Namespace: "ec2-operator-system", RequestNamespace: "openshift-cloud-credential-operator", RequestName: "r", SecretName: "s"}
	if got := assumable(opts); len(got) != 0 {
		t.Errorf("without account roles the request may assume %v", got)
	}
	opts.AccountRoleARNs = roles
	if got := assumable(opts); len(got) != 2 || got[0] != roles[0] || got[1] != roles[1] {
		t.Errorf("the request may assume %v, want %v", got, roles)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}
