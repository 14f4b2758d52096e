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
	"testing"

	"k8s.io/utils/ptr"

	"github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// These cases cover the compute options: image selection, userDataFrom, hibernation,
// lifecycle, CPU, credit, capacity and placement options.

func TestCreateRejectsInvalidComputeSpecs(t *testing.T) {
	secretRef := &v1alpha1.SecretKeySelector{Name: "boot", Key: "user-data"}
	configMapRef := &v1alpha1.ConfigMapKeySelector{Name: "boot", Key: "user-data"}
	testCases := []struct {
		name      string
		mutate    func(*v1alpha1.EC2Instance)
		wantField string
		wantText  string
	}{
		{"userData and userDataFrom together", func(o *v1alpha1.EC2Instance) {
			o.Spec.UserData = "#!/bin/sh"
			o.Spec.UserDataFrom = &v1alpha1.UserDataSource{SecretKeyRef: secretRef}
		}, "spec.userDataFrom", "not both"},
		{"userDataFrom naming nothing", func(o *v1alpha1.EC2Instance) { o.Spec.UserDataFrom = &v1alpha1.UserDataSource{} }, "spec.userDataFrom", "exactly one"},
		{"userDataFrom naming a Secret and a ConfigMap", func(o *v1alpha1.EC2Instance) {
			o.Spec.UserDataFrom = &v1alpha1.UserDataSource{SecretKeyRef: secretRef, ConfigMapKeyRef: configMapRef}
		}, "spec.userDataFrom", "exactly one"},
		{"Secret name that is not a DNS subdomain", func(o *v1alpha1.EC2Instance) {
			o.Spec.UserDataFrom = &v1alpha1.UserDataSource{SecretKeyRef: &v1alpha1.SecretKeySelector{Name: "Boot_Data", Key: "k"}}
		}, "spec.userDataFrom.secretKeyRef.name", "should match"},
		{"key with a slash", func(o *v1alpha1.EC2Instance) {
			o.Spec.UserDataFrom = &v1alpha1.UserDataSource{ConfigMapKeyRef: &v1alpha1.ConfigMapKeySelector{Name: "boot", Key: "a/b"}}
		}, "spec.userDataFrom.configMapKeyRef.key", "should match"},
		{"image ID and selector together", func(o *v1alpha1.EC2Instance) {
			o.Spec.ImageSelector = &v1alpha1.ImageSelector{Owners: []string{"amazon"}}
		}, "spec", "exactly one of imageId and imageSelector"},
		{"neither image ID nor selector", func(o *v1alpha1.EC2Instance) { o.Spec.ImageID = "" }, "spec", "exactly one of imageId and imageSelector"},
		{"image selector without owners", func(o *v1alpha1.EC2Instance) {
			o.Spec.ImageID, o.Spec.ImageSelector = "", &v1alpha1.ImageSelector{Name: "al2023-*"}
		}, "spec.imageSelector.owners", ""},
		{"image owner that is neither an account nor an alias", func(o *v1alpha1.EC2Instance) {
			o.Spec.ImageID, o.Spec.ImageSelector = "", &v1alpha1.ImageSelector{Owners: []string{"amazonx"}}
		}, "spec.imageSelector.owners[0]", "should match"},
		{"hibernation without an encrypted root volume", func(o *v1alpha1.EC2Instance) { o.Spec.Hibernation = ptr.To(true) }, "spec.hibernation", "encrypted root volume"},
		{"hibernation on a Spot Instance", func(o *v1alpha1.EC2Instance) {
			o.Spec.Hibernation = ptr.To(true)
			o.Spec.RootVolume = &v1alpha1.RootVolume{Encrypted: ptr.To(true)}
			o.Spec.Spot = &v1alpha1.SpotOptions{}
		}, "spec.hibernation", "Spot"},
		{"desiredState hibernated without hibernation", func(o *v1alpha1.EC2Instance) { o.Spec.DesiredState = v1alpha1.DesiredStateHibernated }, "spec.desiredState", "hibernation: true"},
		{"credit specification on a fixed-performance type", func(o *v1alpha1.EC2Instance) {
			o.Spec.InstanceType = "m5.large"
			o.Spec.CreditSpecification = &v1alpha1.CreditSpecification{CPUCredits: "unlimited"}
		}, "spec.creditSpecification", "burstable"},
		{"unknown CPU credit option", func(o *v1alpha1.EC2Instance) {
			o.Spec.CreditSpecification = &v1alpha1.CreditSpecification{CPUCredits: "infinite"}
		}, "spec.creditSpecification.cpuCredits", "Unsupported value"},
		{"three threads per core", func(o *v1alpha1.EC2Instance) {
			o.Spec.CPUOptions = &v1alpha1.CPUOptions{ThreadsPerCore: ptr.To[int32](3)}
		}, "spec.cpuOptions.threadsPerCore", ""},
		{"reservation preference and target together", func(o *v1alpha1.EC2Instance) {
			o.Spec.CapacityReservation = &v1alpha1.CapacityReservation{Preference: "open", Target: &v1alpha1.CapacityReservationTarget{CapacityReservationID: "cr-0123456789abcdef0"}}
		}, "spec.capacityReservation", "exactly one of preference or target"},
		{"reservation target naming two things", func(o *v1alpha1.EC2Instance) {
			o.Spec.CapacityReservation = &v1alpha1.CapacityReservation{Target: &v1alpha1.CapacityReservationTarget{
				CapacityReservationID: "cr-0123456789abcdef0", CapacityReservationResourceGroupARN: "arn:aws:resource-groups:us-east-1:123456789012:group/crs"}}
		}, "spec.capacityReservation.target", "exactly one"},
		{"partition without a group", func(o *v1alpha1.EC2Instance) {
			o.Spec.Placement = &v1alpha1.Placement{PartitionNumber: ptr.To[int32](2)}
		}, "spec.placement.partitionNumber", "needs groupName"},
		{"host ID without host tenancy", func(o *v1alpha1.EC2Instance) {
			o.Spec.Placement = &v1alpha1.Placement{HostID: "h-0123456789abcdef0", Tenancy: "dedicated"}
		}, "spec.placement.hostId", "tenancy: host"},
		{"host affinity without host tenancy", func(o *v1alpha1.EC2Instance) { o.Spec.Placement = &v1alpha1.Placement{Affinity: "host"} }, "spec.placement.affinity", "tenancy: host"},
		{"Spot Instance on a Dedicated Host", func(o *v1alpha1.EC2Instance) {
			o.Spec.Placement = &v1alpha1.Placement{Tenancy: "host"}
			o.Spec.Spot = &v1alpha1.SpotOptions{}
		}, "spec.placement.tenancy", "Dedicated Hosts"},
		{"stopping with stop protection on", func(o *v1alpha1.EC2Instance) {
			o.Spec.DisableAPIStop = ptr.To(true)
			o.Spec.DesiredState = v1alpha1.DesiredStateStopped
		}, "spec.disableApiStop", "stop protection is on"},
		{"unknown shutdown behaviour", func(o *v1alpha1.EC2Instance) { o.Spec.InstanceInitiatedShutdownBehavior = "hibernate" }, "spec.instanceInitiatedShutdownBehavior", "Unsupported value"},
		{"unknown hostname type", func(o *v1alpha1.EC2Instance) {
			o.Spec.PrivateDNSNameOptions = &v1alpha1.PrivateDNSNameOptions{HostnameType: "fqdn"}
		}, "spec.privateDnsNameOptions.hostnameType", "Unsupported value"},
	}
	for i, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			obj := validInstance(fmt.Sprintf("compute-invalid-%d", i))
			tc.mutate(obj)
			expectCreateRejected(t, obj, tc.wantField, tc.wantText)
		})
	}
}

func TestUserDataCanMoveBetweenTheSpecAndASecret(t *testing.T) {
	ctx := context.Background()
	obj := validInstance("compute-userdata")
	obj.Spec.UserData = "#!/bin/sh\necho inline\n"
	if err := k8sClient.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, obj) })
	obj.Spec.UserData = ""
	obj.Spec.UserDataFrom = &v1alpha1.UserDataSource{SecretKeyRef: &v1alpha1.SecretKeySelector{Name: "boot", Key: "user-data"}, Base64: true}
	if err := k8sClient.Update(ctx, obj); err != nil {
		t.Fatalf("moving user data to a Secret: %v", err)
	}
}

// computeBase is an object using the compute options that are immutable.
func computeBase(name string) *v1alpha1.EC2Instance {
	o := validInstance(name)
	o.Spec.ImageID = ""
	o.Spec.ImageSelector = &v1alpha1.ImageSelector{Owners: []string{"amazon"}, Name: "al2023-ami-*", Architecture: "x86_64"}
	o.Spec.InstanceType = "m5.large"
	o.Spec.RootVolume = &v1alpha1.RootVolume{SizeGiB: ptr.To[int32](30), Encrypted: ptr.To(true)}
	o.Spec.Hibernation = ptr.To(true)
	o.Spec.CPUOptions = &v1alpha1.CPUOptions{CoreCount: ptr.To[int32](1), ThreadsPerCore: ptr.To[int32](1)}
	o.Spec.Placement = &v1alpha1.Placement{GroupName: "analytics", PartitionNumber: ptr.To[int32](2)}
	return o
}

func TestUpdateRejectsComputeChangesEC2CannotMake(t *testing.T) {
	testCases := []struct {
		name      string
		mutate    func(*v1alpha1.EC2Instance)
		wantField string
		wantText  string
	}{
		{"changing the image selector", func(o *v1alpha1.EC2Instance) { o.Spec.ImageSelector.Name = "al2023-ami-2025*" }, "spec.imageSelector", "immutable"},
		{"switching from a selector to an image ID", func(o *v1alpha1.EC2Instance) {
			o.Spec.ImageSelector, o.Spec.ImageID = nil, "ami-0abcdef1234567890"
		}, "spec", "imageSelector is immutable"},
		{"turning hibernation off", func(o *v1alpha1.EC2Instance) { o.Spec.Hibernation = ptr.To(false) }, "spec.hibernation", "only at launch"},
		{"moving to dedicated hardware", func(o *v1alpha1.EC2Instance) { o.Spec.Placement.Tenancy = "dedicated" }, "spec.placement", "between dedicated and host"},
	}
	for i, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			expectUpdateRejected(t, computeBase(fmt.Sprintf("compute-immutable-%d", i)), tc.mutate, tc.wantField, tc.wantText)
		})
	}
}

func TestUpdateAcceptsComputeChangesAppliedInPlaceOrAtTheNextStop(t *testing.T) {
	ctx := context.Background()
	obj := computeBase("compute-mutable")
	// An empty metadataOptions gets every option's default.
	obj.Spec.MetadataOptions = &v1alpha1.MetadataOptions{}
	if err := k8sClient.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, obj) })
	if m := obj.Spec.MetadataOptions; m == nil || m.InstanceMetadataTags != "disabled" || m.HTTPProtocolIPv6 != "disabled" {
		t.Errorf("metadata options defaults %+v, want tags and IPv6 disabled", m)
	}
	obj.Spec.DesiredState = v1alpha1.DesiredStateHibernated
	obj.Spec.DisableAPIStop = ptr.To(false)
	obj.Spec.InstanceInitiatedShutdownBehavior = "terminate"
	obj.Spec.MaintenanceOptions = &v1alpha1.MaintenanceOptions{AutoRecovery: "disabled"}
	obj.Spec.PrivateDNSNameOptions = &v1alpha1.PrivateDNSNameOptions{HostnameType: "resource-name", EnableResourceNameDNSARecord: true}
	obj.Spec.CapacityReservation = &v1alpha1.CapacityReservation{Target: &v1alpha1.CapacityReservationTarget{CapacityReservationID: "cr-0123456789abcdef0"}}
	obj.Spec.Placement.PartitionNumber = ptr.To[int32](3)
	obj.Spec.CPUOptions.ThreadsPerCore = ptr.To[int32](2)
	obj.Spec.MetadataOptions.InstanceMetadataTags = "enabled"
	obj.Spec.MetadataOptions.HTTPProtocolIPv6 = "enabled"
	if err := k8sClient.Update(ctx, obj); err != nil {
		t.Fatalf("the API server rejected changes the operator can apply: %v", err)
	}
	burst := validInstance("compute-burstable")
	burst.Spec.CreditSpecification = &v1alpha1.CreditSpecification{CPUCredits: "standard"}
	if err := k8sClient.Create(ctx, burst); err != nil {
		t.Fatalf("a credit specification on t3.micro: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, burst) })
	burst.Spec.CreditSpecification.CPUCredits = "unlimited"
	if err := k8sClient.Update(ctx, burst); err != nil {
		t.Fatalf("changing the credit option: %v", err)
	}
}

func TestTenancyChangesOnlyBetweenDedicatedAndHost(t *testing.T) {
	ctx := context.Background()
	obj := validInstance("compute-tenancy")
	obj.Spec.Placement = &v1alpha1.Placement{Tenancy: "dedicated"}
	if err := k8sClient.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, obj) })
	obj.Spec.Placement = &v1alpha1.Placement{Tenancy: "host", Affinity: "host"}
	if err := k8sClient.Update(ctx, obj); err != nil {
		t.Fatalf("moving from dedicated to host tenancy: %v", err)
	}
	obj.Spec.Placement = nil
	if err := k8sClient.Update(ctx, obj); err == nil {
		t.Fatal("the API server accepted a move from host tenancy to shared hardware")
	}
}
