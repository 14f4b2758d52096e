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

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// The user data sources of a scenario with sources: objects with an even number read
// the Secret, the others the ConfigMap, so the operator watches both kinds in the
// namespace, and with them every Secret and ConfigMap that is there.
const (
	userDataSecret    = "bench-boot-secret"
	userDataConfigMap = "bench-boot-config"
	userDataKey       = "cloud-init"
)

// unrelatedDataBytes is the size of the value of each unrelated Secret and ConfigMap,
// about that of an application's configuration file.
const unrelatedDataBytes = 1024

// createSources creates the two sources the objects read and, before them, unrelated
// Secrets and ConfigMaps (half each) that no object reads, each applied as kubectl
// apply does: its last-applied annotation holds a copy of its data, as in real
// clusters. The operator's watches must cost memory for what objects use, not for
// these.
func createSources(t *testing.T, k8s client.Client, ns string, unrelated int) {
	t.Helper()
	names := make([]string, unrelated)
	for i := range names {
		names[i] = fmt.Sprintf("unrelated-%05d", i)
	}
	value := strings.Repeat("x", unrelatedDataBytes)
	parallel(names, func(name string) {
		var obj client.Object
		if last := name[len(name)-1]; (last-'0')%2 == 0 {
			obj = &corev1.Secret{StringData: map[string]string{"config": value}}
		} else {
			obj = &corev1.ConfigMap{Data: map[string]string{"config": value}}
		}
		obj.SetNamespace(ns)
		obj.SetName(name)
		applied, err := json.Marshal(obj)
		if err != nil {
			t.Error(err)
			return
		}
		obj.SetAnnotations(map[string]string{corev1.LastAppliedConfigAnnotation: string(applied)})
		obj.SetLabels(map[string]string{"app.kubernetes.io/part-of": "an-unrelated-application"})
		if err := k8s.Create(context.Background(), obj); err != nil {
			t.Errorf("creating %s: %v", name, err)
		}
	})
	script := "#!/bin/sh\necho bench\n"
	for _, obj := range []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: userDataSecret}, StringData: map[string]string{userDataKey: script}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: userDataConfigMap}, Data: map[string]string{userDataKey: script}},
	} {
		if err := k8s.Create(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
	}
}

// readUserDataFromSources points obj at one of the two sources, by its name's parity.
func readUserDataFromSources(obj *computev1alpha1.EC2Instance) {
	if last := obj.Name[len(obj.Name)-1]; (last-'0')%2 == 0 {
		obj.Spec.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: userDataSecret, Key: userDataKey}}
	} else {
		obj.Spec.UserDataFrom = &computev1alpha1.UserDataSource{ConfigMapKeyRef: &computev1alpha1.ConfigMapKeySelector{Name: userDataConfigMap, Key: userDataKey}}
	}
}

// unrelatedGrowthMiB is how much more peak RSS 10,000 unrelated Secrets and
// ConfigMaps in a watched namespace may cost.
const unrelatedGrowthMiB = 20

// checkUnrelatedGrowth compares the peak RSS of the two sources scenarios, when both
// ran: the highest of each scenario's phases (a restarted manager lists everything
// again, so its phase counts too).
func checkUnrelatedGrowth(t *testing.T, phases []phase) {
	t.Helper()
	peak := map[string]float64{}
	for _, p := range phases {
		peak[p.scenario] = max(peak[p.scenario], p.rssMiB)
	}
	base, withBase := peak["user data from sources"]
	grown, withGrown := peak["user data from sources, 10,000 unrelated"]
	if !withBase || !withGrown {
		return
	}
	t.Logf("10,000 unrelated Secrets and ConfigMaps in the watched namespace: peak RSS %.0f MiB, without them %.0f MiB (%+.0f MiB)",
		grown, base, grown-base)
	if grown-base > unrelatedGrowthMiB {
		t.Errorf("10,000 unrelated Secrets and ConfigMaps cost %.0f MiB of RSS, want at most %d", grown-base, unrelatedGrowthMiB)
	}
}
