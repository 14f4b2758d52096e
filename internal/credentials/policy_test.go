package credentials

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// requiredActions are the calls the operator makes (internal/cloud/ec2).
var requiredActions = []string{
	"ec2:RunInstances", "ec2:DescribeInstances", "ec2:DescribeInstanceAttribute", "ec2:TerminateInstances",
	"ec2:StopInstances", "ec2:StartInstances", "ec2:ModifyInstanceAttribute", "ec2:ModifyInstanceMetadataOptions",
	"ec2:MonitorInstances", "ec2:UnmonitorInstances", "ec2:CreateTags", "ec2:DeleteTags", "ec2:DescribeImages",
	"ec2:DescribeSubnets", "ec2:DescribeSecurityGroups", "ec2:DescribeVolumes", "ec2:ModifyVolume",
	"ec2:DescribeIamInstanceProfileAssociations", "ec2:AssociateIamInstanceProfile",
	"ec2:ReplaceIamInstanceProfileAssociation", "ec2:DisassociateIamInstanceProfile", "iam:PassRole",
	"ssm:GetParameters",
}

func TestPolicyGrantsEveryCallTheOperatorMakes(t *testing.T) {
	granted := map[string]bool{}
	for _, st := range Policy() {
		for _, a := range st.Action {
			if strings.Contains(a, "*") {
				t.Errorf("statement %s uses a wildcard action %s", st.Sid, a)
			}
			granted[a] = true
		}
	}
	for _, a := range requiredActions {
		if !granted[a] {
			t.Errorf("the policy does not grant %s", a)
		}
	}
	for a := range granted {
		found := false
		for _, r := range requiredActions {
			found = found || r == a
		}
		if !found {
			t.Errorf("the policy grants %s, which the operator does not call", a)
		}
	}
}

// TestDestructiveCallsRequireTheOwnerTag: terminating, stopping, modifying and untagging
// are only allowed on resources that carry the operator's owner tag.
func TestDestructiveCallsRequireTheOwnerTag(t *testing.T) {
	destructive := map[string]bool{
		"ec2:TerminateInstances": true, "ec2:StopInstances": true, "ec2:StartInstances": true,
		"ec2:ModifyInstanceMetadataOptions": true, "ec2:DeleteTags": true, "ec2:ModifyVolume": true,
		"ec2:DisassociateIamInstanceProfile": true, "ec2:AssociateIamInstanceProfile": true,
		"ec2:ReplaceIamInstanceProfileAssociation": true, "ec2:MonitorInstances": true, "ec2:UnmonitorInstances": true,
	}
	for _, st := range Policy() {
		for _, a := range st.Action {
			if !destructive[a] && !(a == "ec2:ModifyInstanceAttribute" && containsARN(st.Resource, ":instance/")) {
				continue
			}
			if st.Condition["Null"]["aws:ResourceTag/"+OwnerTagKey] != "false" {
				t.Errorf("statement %s allows %s without requiring the %s tag", st.Sid, a, OwnerTagKey)
			}
		}
		if containsAction(st.Action, "ec2:CreateTags") && len(st.Condition) == 0 {
			t.Errorf("statement %s allows CreateTags unconditionally", st.Sid)
		}
		if containsAction(st.Action, "ec2:RunInstances") && containsARN(st.Resource, ":instance/") &&
			st.Condition["Null"]["aws:RequestTag/"+OwnerTagKey] != "false" {
			t.Errorf("statement %s launches instances without the owner tag in the request", st.Sid)
		}
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
	wantJSON, _ := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": Policy()})
	_ = json.Unmarshal(wantJSON, &want)
	if !equality.Semantic.DeepEqual(onDisk, want) {
		t.Errorf("docs/aws-iam-policy.json differs from credentials.Policy():\nwant %s", wantJSON)
	}
}
