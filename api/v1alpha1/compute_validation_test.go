package v1alpha1_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// These cases cover the compute options: userDataFrom so far.

func TestCreateRejectsInvalidComputeSpecs(t *testing.T) {
	secretRef := &v1alpha1.KeySelector{Name: "boot", Key: "user-data"}
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
			o.Spec.UserDataFrom = &v1alpha1.UserDataSource{SecretKeyRef: secretRef, ConfigMapKeyRef: secretRef}
		}, "spec.userDataFrom", "exactly one"},
		{"Secret name that is not a DNS subdomain", func(o *v1alpha1.EC2Instance) {
			o.Spec.UserDataFrom = &v1alpha1.UserDataSource{SecretKeyRef: &v1alpha1.KeySelector{Name: "Boot_Data", Key: "k"}}
		}, "spec.userDataFrom.secretKeyRef.name", "should match"},
		{"key with a slash", func(o *v1alpha1.EC2Instance) {
			o.Spec.UserDataFrom = &v1alpha1.UserDataSource{ConfigMapKeyRef: &v1alpha1.KeySelector{Name: "boot", Key: "a/b"}}
		}, "spec.userDataFrom.configMapKeyRef.key", "should match"},
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
	obj.Spec.UserDataFrom = &v1alpha1.UserDataSource{SecretKeyRef: &v1alpha1.KeySelector{Name: "boot", Key: "user-data"}, Base64: true}
	if err := k8sClient.Update(ctx, obj); err != nil {
		t.Fatalf("moving user data to a Secret: %v", err)
	}
}
