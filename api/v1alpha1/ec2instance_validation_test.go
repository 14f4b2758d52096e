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

package v1alpha1_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// These tests send objects to a real kube-apiserver with the generated CRD installed,
// so they prove what users get: the OpenAPI schema, the defaults and the CEL rules as
// the API server evaluates them, not as we hope it does.

var k8sClient client.Client

func TestMain(m *testing.M) {
	if testenv.UnitTier() {
		// Every test here sends objects to the API server; make test runs them.
		fmt.Println("api/v1alpha1: API tests need a kube-apiserver; not in the unit tier")
		os.Exit(0)
	}
	env, err := testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	k8sClient, err = client.New(env.Config, client.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = env.Stop()
		os.Exit(1)
	}
	if err := checkServerVersion(env.Config); err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = env.Stop()
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping envtest:", err)
	}
	os.Exit(code)
}

// checkServerVersion fails when EXPECT_KUBE_VERSION (set by `make test-min-kube`) names
// another kube-apiserver version than the one the tests talk to, so that a run meant for
// the oldest supported Kubernetes cannot pass against the newest by mistake.
func checkServerVersion(cfg *rest.Config) error {
	want := os.Getenv("EXPECT_KUBE_VERSION")
	if want == "" {
		return nil
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return err
	}
	if strings.TrimPrefix(v.GitVersion, "v") != want {
		return fmt.Errorf("the API tests are meant for kube-apiserver %s, but %s answers (KUBEBUILDER_ASSETS)", want, v.GitVersion)
	}
	fmt.Fprintf(os.Stderr, "API tests against kube-apiserver %s\n", v.GitVersion)
	return nil
}

// validInstance returns the smallest object the API accepts.
func validInstance(name string) *v1alpha1.EC2Instance {
	return &v1alpha1.EC2Instance{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1alpha1.EC2InstanceSpec{
			ImageID:      "ami-0abcdef1234567890",
			InstanceType: "t3.micro",
		},
	}
}

func manyTags(n int) map[string]string {
	tags := map[string]string{}
	for i := range n {
		tags[fmt.Sprintf("key-%d", i)] = "v"
	}
	return tags
}

func TestCreateRejectsInvalidSpecsNamingTheField(t *testing.T) {
	testCases := []struct {
		name   string
		mutate func(*v1alpha1.EC2Instance)
		// wantField is the field path the API server's message must name.
		wantField string
		// wantText is a further fragment the message must contain.
		wantText string
	}{
		{"malformed AMI ID", func(o *v1alpha1.EC2Instance) { o.Spec.ImageID = "ami-123" }, "spec.imageId", "should match"},
		{"AMI ID with upper-case hex", func(o *v1alpha1.EC2Instance) { o.Spec.ImageID = "ami-0ABCDEF1234567890" }, "spec.imageId", "should match"},
		{"SSM reference without a parameter path", func(o *v1alpha1.EC2Instance) { o.Spec.ImageID = "resolve:ssm:" }, "spec.imageId", "should match"},
		{"missing image", func(o *v1alpha1.EC2Instance) { o.Spec.ImageID = "" }, "spec", "exactly one of imageId and imageSelector"},
		{"empty instance type", func(o *v1alpha1.EC2Instance) { o.Spec.InstanceType = "" }, "spec.instanceType", ""},
		{"instance type without a size", func(o *v1alpha1.EC2Instance) { o.Spec.InstanceType = "micro" }, "spec.instanceType", "should match"},
		{"malformed subnet ID", func(o *v1alpha1.EC2Instance) { o.Spec.SubnetID = "subnet-xyz" }, "spec.subnetId", "should match"},
		{"malformed security group ID", func(o *v1alpha1.EC2Instance) { o.Spec.SecurityGroupIDs = []string{"sg-nothex"} }, "spec.securityGroupIds[0]", "should match"},
		{"duplicate security group", func(o *v1alpha1.EC2Instance) {
			o.Spec.SecurityGroupIDs = []string{"sg-0a1b2c3d4e5f60001", "sg-0a1b2c3d4e5f60001"}
		}, "spec.securityGroupIds[1]", "Duplicate value"},
		{"tag key with the aws: prefix", func(o *v1alpha1.EC2Instance) { o.Spec.Tags = map[string]string{"aws:cloudformation:stack": "x"} }, "spec.tags", "aws:"},
		{"tag key with the AWS: prefix in capitals", func(o *v1alpha1.EC2Instance) { o.Spec.Tags = map[string]string{"AWS:Team": "x"} }, "spec.tags", "aws:"},
		{"tag key with the operator's prefix", func(o *v1alpha1.EC2Instance) {
			o.Spec.Tags = map[string]string{"ec2-operator.dev/owner-uid": "x"}
		}, "spec.tags", "ec2-operator.dev/"},
		{"too many tags", func(o *v1alpha1.EC2Instance) { o.Spec.Tags = manyTags(45) }, "spec.tags", "44"},
		{"tag value too long", func(o *v1alpha1.EC2Instance) { o.Spec.Tags = map[string]string{"k": strings.Repeat("v", 257)} }, "spec.tags", "256"},
		{"tag key too long", func(o *v1alpha1.EC2Instance) { o.Spec.Tags = map[string]string{strings.Repeat("k", 129): "v"} }, "spec.tags", "128"},
		{"user data over 16384 characters", func(o *v1alpha1.EC2Instance) { o.Spec.UserData = strings.Repeat("x", 16385) }, "spec.userData", ""},
		{"user data over 16384 bytes in fewer characters", func(o *v1alpha1.EC2Instance) {
			o.Spec.UserData = strings.Repeat("é", 8193) // 2 bytes each: 16386 bytes, 8193 characters
		}, "spec.userData", "16 KB"},
		{"root volume of size 0", func(o *v1alpha1.EC2Instance) { o.Spec.RootVolume = &v1alpha1.RootVolume{SizeGiB: ptr.To[int32](0)} }, "spec.rootVolume.sizeGiB", ""},
		{"root volume too big", func(o *v1alpha1.EC2Instance) { o.Spec.RootVolume = &v1alpha1.RootVolume{SizeGiB: ptr.To[int32](70000)} }, "spec.rootVolume.sizeGiB", ""},
		{"gp2 root volume over 16 TiB", func(o *v1alpha1.EC2Instance) {
			o.Spec.RootVolume = &v1alpha1.RootVolume{SizeGiB: ptr.To[int32](20000), Type: "gp2"}
		}, "spec.rootVolume", "16384"},
		{"magnetic root volume over 1 TiB", func(o *v1alpha1.EC2Instance) {
			o.Spec.RootVolume = &v1alpha1.RootVolume{SizeGiB: ptr.To[int32](2000), Type: "standard"}
		}, "spec.rootVolume", "1024"},
		{"iops on gp2", func(o *v1alpha1.EC2Instance) {
			o.Spec.RootVolume = &v1alpha1.RootVolume{Type: "gp2", IOPS: ptr.To[int32](3000)}
		}, "spec.rootVolume", "iops can only be set"},
		{"io2 without iops", func(o *v1alpha1.EC2Instance) { o.Spec.RootVolume = &v1alpha1.RootVolume{Type: "io2"} }, "spec.rootVolume", "iops is required"},
		{"throughput on gp2", func(o *v1alpha1.EC2Instance) {
			o.Spec.RootVolume = &v1alpha1.RootVolume{Type: "gp2", Throughput: ptr.To[int32](250)}
		}, "spec.rootVolume", "throughput"},
		{"KMS key without encryption", func(o *v1alpha1.EC2Instance) {
			o.Spec.RootVolume = &v1alpha1.RootVolume{KMSKeyID: "alias/ebs"}
		}, "spec.rootVolume", "kmsKeyId requires encrypted"},
		{"throughput-optimized HDD as the root volume", func(o *v1alpha1.EC2Instance) {
			o.Spec.RootVolume = &v1alpha1.RootVolume{Type: "st1", SizeGiB: ptr.To[int32](500)}
		}, "spec.rootVolume", "cannot be boot volumes"},
		{"root volume with an SSM parameter of unknown root device", func(o *v1alpha1.EC2Instance) {
			o.Spec.ImageID = "resolve:ssm:/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id"
			o.Spec.RootVolume = &v1alpha1.RootVolume{SizeGiB: ptr.To[int32](30)}
		}, "spec", "root device name is unknown"},
		{"unknown volume type", func(o *v1alpha1.EC2Instance) { o.Spec.RootVolume = &v1alpha1.RootVolume{Type: "nvme"} }, "spec.rootVolume.type", "Unsupported value"},
		{"unknown desired state", func(o *v1alpha1.EC2Instance) { o.Spec.DesiredState = "paused" }, "spec.desiredState", "Unsupported value"},
		{"unknown deletion policy", func(o *v1alpha1.EC2Instance) { o.Spec.DeletionPolicy = "Orphan" }, "spec.deletionPolicy", "Unsupported value"},
		{"outputs to a name no object may have", func(o *v1alpha1.EC2Instance) {
			o.Spec.OutputsTo = &v1alpha1.OutputsTarget{Name: "Web_1"}
		}, "spec.outputsTo.name", "should match"},
		{"outputs to another kind", func(o *v1alpha1.EC2Instance) {
			o.Spec.OutputsTo = &v1alpha1.OutputsTarget{Kind: "Service", Name: "web"}
		}, "spec.outputsTo.kind", "Unsupported value"},
		{"IMDS tokens neither required nor optional", func(o *v1alpha1.EC2Instance) {
			o.Spec.MetadataOptions = &v1alpha1.MetadataOptions{HTTPTokens: "maybe"}
		}, "spec.metadataOptions.httpTokens", "Unsupported value"},
		{"IMDS hop limit over 64", func(o *v1alpha1.EC2Instance) {
			o.Spec.MetadataOptions = &v1alpha1.MetadataOptions{HTTPPutResponseHopLimit: 65}
		}, "spec.metadataOptions.httpPutResponseHopLimit", ""},
		{"malformed instance ID to adopt", func(o *v1alpha1.EC2Instance) { o.Spec.InstanceID = "i-12" }, "spec.instanceId", "should match"},
		{"IAM role ARN instead of an instance profile", func(o *v1alpha1.EC2Instance) {
			o.Spec.IAMInstanceProfile = "arn:aws:iam::123456789012:role/app"
		}, "spec.iamInstanceProfile", "should match"},
		{"malformed region", func(o *v1alpha1.EC2Instance) { o.Spec.Region = "moon" }, "spec.region", "should match"},
		{"malformed availability zone", func(o *v1alpha1.EC2Instance) { o.Spec.AvailabilityZone = "1a" }, "spec.availabilityZone", "should match"},
		{"spot price that is not a number", func(o *v1alpha1.EC2Instance) { o.Spec.Spot = &v1alpha1.SpotOptions{MaxPrice: "cheap"} }, "spec.spot.maxPrice", "should match"},
		{"stopping a one-time Spot Instance", func(o *v1alpha1.EC2Instance) {
			o.Spec.Spot = &v1alpha1.SpotOptions{InterruptionBehavior: "terminate"}
			o.Spec.DesiredState = v1alpha1.DesiredStateStopped
		}, "spec", "cannot be stopped"},
		{"unknown spot interruption behaviour", func(o *v1alpha1.EC2Instance) {
			o.Spec.Spot = &v1alpha1.SpotOptions{InterruptionBehavior: "pause"}
		}, "spec.spot.interruptionBehavior", "Unsupported value"},
	}
	for i, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			obj := validInstance(fmt.Sprintf("invalid-%d", i))
			tc.mutate(obj)
			expectCreateRejected(t, obj, tc.wantField, tc.wantText)
		})
	}
}

// expectCreateRejected creates obj and wants the API server to refuse it as Invalid,
// with a message that names field and contains text.
func expectCreateRejected(t *testing.T, obj *v1alpha1.EC2Instance, field, text string) {
	t.Helper()
	err := k8sClient.Create(context.Background(), obj)
	if err == nil {
		_ = k8sClient.Delete(context.Background(), obj)
		t.Fatalf("the API server accepted an invalid object")
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want an Invalid error, got %v", err)
	}
	if !strings.Contains(err.Error(), field) || !strings.Contains(err.Error(), text) {
		t.Errorf("want a message naming %s and containing %q, got %v", field, text, err)
	}
}

// expectUpdateRejected creates base, applies mutate, and wants the update refused
// with a message that names field and contains text.
func expectUpdateRejected(t *testing.T, base *v1alpha1.EC2Instance, mutate func(*v1alpha1.EC2Instance), field, text string) {
	t.Helper()
	ctx := context.Background()
	if err := k8sClient.Create(ctx, base); err != nil {
		t.Fatalf("creating the base object: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, base) })
	mutate(base)
	err := k8sClient.Update(ctx, base)
	if err == nil {
		t.Fatalf("the API server accepted a change EC2 cannot make in place")
	}
	if !strings.Contains(err.Error(), field) || !strings.Contains(err.Error(), text) {
		t.Errorf("want a message naming %s and containing %q, got %v", field, text, err)
	}
}

func TestUpdateRejectsChangesEC2CannotMakeInPlace(t *testing.T) {
	base := func(name string) *v1alpha1.EC2Instance {
		o := validInstance(name)
		o.Spec.SubnetID = "subnet-0a1b2c3d4e5f60001"
		o.Spec.KeyName = "demo-key"
		o.Spec.AvailabilityZone = "us-east-1a"
		o.Spec.Region = "us-east-1"
		o.Spec.AssociatePublicIPAddress = ptr.To(true)
		o.Spec.Spot = &v1alpha1.SpotOptions{MaxPrice: "0.05"}
		o.Spec.InstanceID = "i-0123456789abcdef0"
		o.Spec.RootVolume = &v1alpha1.RootVolume{SizeGiB: ptr.To[int32](20), Type: "gp3", Encrypted: ptr.To(true)}
		return o
	}
	testCases := []struct {
		name      string
		mutate    func(*v1alpha1.EC2Instance)
		wantField string
		wantText  string
	}{
		{"changing the image", func(o *v1alpha1.EC2Instance) { o.Spec.ImageID = "ami-0fedcba0987654321" }, "spec.imageId", "immutable"},
		{"changing the subnet", func(o *v1alpha1.EC2Instance) { o.Spec.SubnetID = "subnet-0a1b2c3d4e5f60002" }, "spec.subnetId", "immutable"},
		{"removing the subnet", func(o *v1alpha1.EC2Instance) { o.Spec.SubnetID = "" }, "spec", "subnetId is immutable"},
		{"changing the key pair", func(o *v1alpha1.EC2Instance) { o.Spec.KeyName = "other" }, "spec.keyName", "immutable"},
		{"changing the availability zone", func(o *v1alpha1.EC2Instance) { o.Spec.AvailabilityZone = "us-east-1b" }, "spec.availabilityZone", "immutable"},
		{"changing the region", func(o *v1alpha1.EC2Instance) { o.Spec.Region = "eu-west-1" }, "spec.region", "immutable"},
		{"changing public IP association", func(o *v1alpha1.EC2Instance) { o.Spec.AssociatePublicIPAddress = ptr.To(false) }, "spec.associatePublicIpAddress", "immutable"},
		{"changing spot options", func(o *v1alpha1.EC2Instance) { o.Spec.Spot.MaxPrice = "0.10" }, "spec.spot", "immutable"},
		{"removing spot options", func(o *v1alpha1.EC2Instance) { o.Spec.Spot = nil }, "spec", "spot is immutable"},
		{"changing the adopted instance", func(o *v1alpha1.EC2Instance) { o.Spec.InstanceID = "i-0fedcba9876543210" }, "spec.instanceId", "immutable"},
		{"removing the adopted instance", func(o *v1alpha1.EC2Instance) { o.Spec.InstanceID = "" }, "spec", "instanceId is immutable"},
		{"changing the type of a Spot Instance", func(o *v1alpha1.EC2Instance) { o.Spec.InstanceType = "t3.large" }, "spec", "Spot Instance is immutable"},
		{"shrinking the root volume", func(o *v1alpha1.EC2Instance) { o.Spec.RootVolume.SizeGiB = ptr.To[int32](10) }, "spec.rootVolume.sizeGiB", "only grow"},
		{"changing the root volume type", func(o *v1alpha1.EC2Instance) { o.Spec.RootVolume.Type = "gp2" }, "spec.rootVolume.type", "immutable"},
		{"removing the root volume", func(o *v1alpha1.EC2Instance) { o.Spec.RootVolume = nil }, "spec", "rootVolume cannot be added or removed"},
	}
	for i, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			expectUpdateRejected(t, base(fmt.Sprintf("immutable-%d", i)), tc.mutate, tc.wantField, tc.wantText)
		})
	}
}

func TestUpdateAcceptsChangesTheOperatorAppliesInPlace(t *testing.T) {
	ctx := context.Background()
	obj := validInstance("mutable")
	obj.Spec.RootVolume = &v1alpha1.RootVolume{SizeGiB: ptr.To[int32](20)}
	if err := k8sClient.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, obj) })

	obj.Spec.InstanceType = "m7i.large"
	obj.Spec.SecurityGroupIDs = []string{"sg-0a1b2c3d4e5f60002"}
	obj.Spec.Tags = map[string]string{"team": "payments"}
	obj.Spec.DesiredState = v1alpha1.DesiredStateStopped
	obj.Spec.MetadataOptions = &v1alpha1.MetadataOptions{HTTPPutResponseHopLimit: 3}
	obj.Spec.Monitoring = ptr.To(true)
	obj.Spec.DisableAPITermination = ptr.To(true)
	obj.Spec.UserData = "#!/bin/sh\necho hello\n"
	obj.Spec.IAMInstanceProfile = "arn:aws:iam::123456789012:instance-profile/app"
	obj.Spec.RootVolume.SizeGiB = ptr.To[int32](40)
	obj.Spec.DeletionPolicy = v1alpha1.DeletionPolicyRetain
	if err := k8sClient.Update(ctx, obj); err != nil {
		t.Fatalf("the API server rejected changes the operator can apply: %v", err)
	}
}

func TestUpdateRejectsAdoptingAfterCreation(t *testing.T) {
	ctx := context.Background()
	obj := validInstance("adopt-late")
	if err := k8sClient.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, obj) })
	obj.Spec.InstanceID = "i-0123456789abcdef0"
	err := k8sClient.Update(ctx, obj)
	if err == nil || !strings.Contains(err.Error(), "instanceId is immutable") {
		t.Fatalf("want instanceId rejected after creation, got %v", err)
	}
}

func TestCreateFillsInSafeDefaults(t *testing.T) {
	ctx := context.Background()
	obj := validInstance("defaults")
	obj.Spec.RootVolume = &v1alpha1.RootVolume{SizeGiB: ptr.To[int32](30)}
	obj.Spec.Spot = &v1alpha1.SpotOptions{}
	obj.Spec.MetadataOptions = &v1alpha1.MetadataOptions{}
	obj.Spec.OutputsTo = &v1alpha1.OutputsTarget{Name: "defaults-out"}
	if err := k8sClient.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, obj) })

	got := &v1alpha1.EC2Instance{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
		t.Fatalf("get: %v", err)
	}
	s := got.Spec
	if s.MetadataOptions == nil {
		t.Fatalf("metadataOptions was not defaulted")
	}
	checks := []struct {
		field     string
		got, want any
	}{
		{"metadataOptions.httpTokens", s.MetadataOptions.HTTPTokens, v1alpha1.HTTPTokensRequired},
		{"metadataOptions.httpPutResponseHopLimit", s.MetadataOptions.HTTPPutResponseHopLimit, int32(2)},
		{"metadataOptions.httpEndpoint", s.MetadataOptions.HTTPEndpoint, v1alpha1.EndpointState("enabled")},
		{"deletionPolicy", s.DeletionPolicy, v1alpha1.DeletionPolicyDelete},
		{"rootVolume.type", s.RootVolume.Type, v1alpha1.VolumeType("gp3")},
		{"rootVolume.deleteOnTermination", *s.RootVolume.DeleteOnTermination, true},
		{"spot.interruptionBehavior", s.Spot.InterruptionBehavior, v1alpha1.SpotInterruptionBehavior("terminate")},
		{"outputsTo.kind", s.OutputsTo.Kind, v1alpha1.OutputsConfigMap},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.field, c.got, c.want)
		}
	}
}

// TestCreateLeavesLateInitializedFieldsUnset proves that the fields an adoption fills
// in from the instance have no API default: a default would be indistinguishable from
// the user's choice, and adopting would enforce it on the instance. The operator's
// own launch defaults (IMDSv2 only, monitoring and protection off, running) are
// applied in code, where nil means "launch with the safe default".
func TestCreateLeavesLateInitializedFieldsUnset(t *testing.T) {
	ctx := context.Background()
	obj := &v1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Name: "adopt-minimal", Namespace: "default"},
		Spec: v1alpha1.EC2InstanceSpec{InstanceID: "i-0123456789abcdef0"}}
	if err := k8sClient.Create(ctx, obj); err != nil {
		t.Fatalf("an adoption naming only the instance ID was rejected: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, obj) })
	s := obj.Spec
	if s.InstanceType != "" || s.ImageID != "" || s.MetadataOptions != nil || s.Monitoring != nil ||
		s.DisableAPITermination != nil || s.DesiredState != "" || s.Tags != nil {
		t.Errorf("late-initialized fields were defaulted: %+v", s)
	}
	if s.DeletionPolicy != v1alpha1.DeletionPolicyDelete {
		t.Errorf("deletionPolicy %q, want Delete", s.DeletionPolicy)
	}
	if s.ManagementPolicy != v1alpha1.ManagementPolicyFull {
		t.Errorf("managementPolicy %q, want Full", s.ManagementPolicy)
	}
	readOnly := &v1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Name: "read-only", Namespace: "default"},
		Spec: v1alpha1.EC2InstanceSpec{InstanceID: "i-0123456789abcdef0", ManagementPolicy: "ReadOnly"}}
	if err := k8sClient.Create(ctx, readOnly); err == nil || !strings.Contains(err.Error(), "managementPolicy") {
		t.Errorf("managementPolicy ReadOnly: got %v, want it rejected", err)
	}
	launch := &v1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Name: "launch-without-type", Namespace: "default"},
		Spec: v1alpha1.EC2InstanceSpec{ImageID: "ami-0123456789abcdef0"}}
	err := k8sClient.Create(ctx, launch)
	if err == nil || !strings.Contains(err.Error(), "instanceType is required") {
		t.Errorf("a launch without instanceType: got %v, want it rejected", err)
	}
}

func TestCreateAcceptsTheShippedSampleShape(t *testing.T) {
	ctx := context.Background()
	obj := validInstance("full")
	obj.Spec.ImageID = "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64"
	obj.Spec.SubnetID = "subnet-0a1b2c3d4e5f60001"
	obj.Spec.SecurityGroupIDs = []string{"sg-0a1b2c3d4e5f60002", "sg-0a1b2c3d"}
	obj.Spec.IAMInstanceProfile = "ec2-operator-demo"
	obj.Spec.RootVolume = &v1alpha1.RootVolume{SizeGiB: ptr.To[int32](100), Type: "io2", IOPS: ptr.To[int32](5000),
		Encrypted: ptr.To(true), KMSKeyID: "alias/aws/ebs"}
	// As many tags as fit beside the operator's six on a data volume (50 in all).
	obj.Spec.Tags = manyTags(44)
	obj.Spec.UserData = strings.Repeat("x", 16384)
	obj.Spec.InstanceType = "u-6tb1.metal"
	if err := k8sClient.Create(ctx, obj); err != nil {
		t.Fatalf("the API server rejected a valid object: %v", err)
	}
	_ = k8sClient.Delete(ctx, obj)
}
