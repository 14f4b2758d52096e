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

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// userDataSecret is a Secret as users keep cloud-init in, applied with kubectl (which
// keeps the whole object, value included, in its last-applied annotation).
func userDataSecret(ns, value string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata:
  name: boot
  namespace: %s
stringData:
  user-data: %q
`, ns, value)
}

// TestAUserDataSecretEditIsSeenWithinSecondsByTheShippedManager runs the manager
// binary with the periods it ships with (10 min resync, 1 h attribute resync): an
// edit of the Secret that userDataFrom names reaches Synced=False, UserDataPendingStop
// within seconds, and the instance keeps running.
func TestAUserDataSecretEditIsSeenWithinSecondsByTheShippedManager(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "userdata")
	startManager(t, "userdata", ns)
	kubectl(t, userDataSecret(ns, "#!/bin/sh\necho v1\n"), "apply", "-f", "-")
	manifest := instanceManifest(ns, "boot") + "  userDataFrom:\n    secretKeyRef:\n      name: boot\n      key: user-data\n"
	kubectl(t, manifest, "apply", "-f", "-")
	id := waitReady(t, ns, "boot").Status.InstanceID
	if ud := string(simInstance(t, id).UserData); ud != "#!/bin/sh\necho v1\n" {
		t.Fatalf("launched with user data %q, want the Secret's", ud)
	}
	// Settled first: Synced=True for the current generation, so what follows is the
	// edit's doing.
	eventually(t, waitTimeout, func() string {
		c := meta.FindStatusCondition(getInstance(t, ns, "boot").Status.Conditions, computev1alpha1.ConditionSynced)
		if c == nil || c.Status != "True" {
			return fmt.Sprintf("Synced %+v", c)
		}
		return ""
	})

	edited := time.Now()
	kubectl(t, userDataSecret(ns, "#!/bin/sh\necho v2\n"), "apply", "-f", "-")
	eventually(t, 15*time.Second, func() string {
		c := meta.FindStatusCondition(getInstance(t, ns, "boot").Status.Conditions, computev1alpha1.ConditionSynced)
		if c == nil || c.Status != "False" || c.Reason != "UserDataPendingStop" {
			return fmt.Sprintf("Synced %+v, want False/UserDataPendingStop", c)
		}
		return ""
	})
	t.Logf("the edit was seen in %s", time.Since(edited).Round(100*time.Millisecond))
	if inst := simInstance(t, id); inst.State != "running" || !strings.Contains(string(inst.UserData), "v1") {
		t.Errorf("an edit of user data must wait for the next stop: instance %s with %q", inst.State, inst.UserData)
	}
}
