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

package controller

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/converge"
)

// secretUserData is user data with a credential in it, as users keep in Secrets.
const secretUserData = "#!/bin/sh\nexport DB_PASSWORD=s3cr3t-do-not-log\n"

func (h *harness) createSecret(name, key, value string) *corev1.Secret {
	h.t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns}, Data: map[string][]byte{key: []byte(value)}}
	if err := h.k8s.Create(context.Background(), s); err != nil {
		h.t.Fatal(err)
	}
	return s
}

// eventNotes returns every event note recorded in the test's namespace.
func (h *harness) eventNotes() string {
	h.t.Helper()
	list := &eventsv1.EventList{}
	if err := h.k8s.List(context.Background(), list, client.InNamespace(h.ns)); err != nil {
		h.t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range list.Items {
		b.WriteString(e.Note + "\n")
	}
	return b.String()
}

func TestUserDataFromASecretIsLaunchedAndNeverLoggedOrShown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.createSecret("boot", "user-data", secretUserData)
	obj := h.instance("fromsecret")
	obj.Spec.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: "boot", Key: "user-data"}}
	h.create(obj)
	got := h.waitReady("fromsecret")
	if ud := string(h.simInstance(got.Status.InstanceID).UserData); ud != secretUserData {
		t.Errorf("instance user data %q, want the Secret's", ud)
	}

	// An edit of the Secret is applied like an edit of userData: at the next stop.
	m := h.mark("fromsecret")
	edited := strings.Replace(secretUserData, "s3cr3t", "n3w-s3cr3t", 1)
	secret := &corev1.Secret{}
	if err := h.k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: "boot"}, secret); err != nil {
		t.Fatal(err)
	}
	secret.Data["user-data"] = []byte(edited)
	if err := h.k8s.Update(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	h.waitConditionSince(m, computev1alpha1.ConditionSynced, metav1.ConditionFalse, converge.ReasonUserDataPending)
	h.update("fromsecret", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateStopped })
	h.eventually(h.timeout, func() string {
		inst := h.simInstance(got.Status.InstanceID)
		if string(inst.UserData) != edited || inst.State != "stopped" {
			return "user data not applied while stopped (state " + inst.State + ")"
		}
		return ""
	})

	if !operatorLogs.contains(got.Status.InstanceID) {
		t.Fatal("the operator's logs are not captured: the check below would prove nothing")
	}
	for _, leaked := range []string{"s3cr3t", base64.StdEncoding.EncodeToString([]byte(secretUserData))} {
		if operatorLogs.contains(leaked) {
			t.Errorf("the operator logged the Secret's user data (%q)", leaked)
		}
		if strings.Contains(h.eventNotes(), leaked) {
			t.Errorf("an event shows the Secret's user data (%q)", leaked)
		}
		obj := h.get("fromsecret")
		for _, c := range obj.Status.Conditions {
			if strings.Contains(c.Message, leaked) {
				t.Errorf("condition %s shows the Secret's user data", c.Type)
			}
		}
	}
}

func TestMissingUserDataSourceStopsTheLaunchUntilItExists(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("nosecret")
	obj.Spec.UserDataFrom = &computev1alpha1.UserDataSource{ConfigMapKeyRef: &computev1alpha1.ConfigMapKeySelector{Name: "boot", Key: "user-data"}, Base64: true}
	h.create(obj)
	h.waitCondition("nosecret", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonUserDataNotFound)
	h.waitEvent("nosecret", computev1alpha1.ReasonUserDataNotFound)
	if n := h.sim.Calls("RunInstances"); n != 0 {
		t.Fatalf("RunInstances called %d times without user data", n)
	}

	// The ConfigMap appears, without the key: still not found, now naming the key.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "boot", Namespace: h.ns}, Data: map[string]string{"other": "x"}}
	if err := h.k8s.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	h.eventually(h.timeout, func() string {
		if c := findCondition(h.get("nosecret"), computev1alpha1.ConditionReady); !strings.Contains(c.Message, "has no key user-data") {
			return "Ready says " + c.Message
		}
		return ""
	})

	// The key appears (base64, as the spec says): the watch brings the object back at
	// once and it launches with the decoded user data.
	cm.Data["user-data"] = base64.StdEncoding.EncodeToString([]byte("#cloud-config\n"))
	if err := h.k8s.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	got := h.waitReady("nosecret")
	if ud := string(h.simInstance(got.Status.InstanceID).UserData); ud != "#cloud-config\n" {
		t.Errorf("instance user data %q, want the decoded ConfigMap value", ud)
	}
}
