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
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/grants"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// operatorSA is the manager's ServiceAccount, as the bundle and config/ name it.
const operatorSA = "ec2-operator-controller-manager"

// asOperator makes the reconciler read userDataFrom sources and write outputs as the
// operator's ServiceAccount of namespace opNS, under the RBAC the API server really has, instead
// of the test's admin identity; the namespace's grant is then what decides.
func asOperator(t testing.TB, opNS string, ownSecrets ...string) func(*EC2InstanceReconciler) {
	t.Helper()
	testenv.SkipInUnitTier(t)
	installShippedRole(t, "config/rbac/userdata_reader_role.yaml", grants.UserDataReaderRole)
	installShippedRole(t, "config/rbac/outputs_writer_role.yaml", grants.OutputsWriterRole)
	cfg := rest.CopyConfig(sharedEnv().Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + opNS + ":" + operatorSA,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + opNS, "system:authenticated"},
	}
	reader, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	watcher, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return func(r *EC2InstanceReconciler) {
		r.APIReader = reader
		r.OutputsClient = reader
		r.SourceWatcher = watcher
		r.Identity = grants.Identity{Namespace: opNS, ServiceAccount: operatorSA, OwnSecrets: ownSecrets}
	}
}

// installShippedRole creates a shipped ClusterRole (file, under config/rbac) under the
// name kustomize gives it.
func installShippedRole(t testing.TB, file, name string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.ProjectRoot(), file))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatal(err)
	}
	role.Name = name
	admin, err := client.New(sharedEnv().Config, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Create(context.Background(), &role); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
}

// grantUserData runs, in effect, the command the refusal names.
func (h *harness) grantUserData(opNS string) {
	h.t.Helper()
	h.grant(opNS, grants.UserDataReaderRole)
}

// grant binds the ClusterRole role to the operator's ServiceAccount in the test's
// namespace, as the commands the refusals name do.
func (h *harness) grant(opNS, role string) {
	h.t.Helper()
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: role},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: operatorSA, Namespace: opNS}},
	}
	if err := h.k8s.Create(context.Background(), binding); err != nil {
		h.t.Fatal(err)
	}
}

func TestUserDataFromWaitsForTheNamespacesGrantAndNamesTheCommand(t *testing.T) {
	t.Parallel()
	const opNS = "ec2-operator-system"
	h := newHarness(t, harnessOptions{tweak: asOperator(t, opNS)})
	h.createSecret("boot", "user-data", secretUserData)
	obj := h.instance("needsgrant")
	obj.Spec.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: "boot", Key: "user-data"}}
	h.create(obj)

	got := h.waitCondition("needsgrant", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonUserDataNotGranted)
	msg := findCondition(got, computev1alpha1.ConditionReady).Message
	want := "kubectl create rolebinding ec2-operator-userdata-reader --namespace " + h.ns +
		" --clusterrole=ec2-operator-userdata-reader --serviceaccount=" + opNS + ":" + operatorSA
	if !strings.Contains(msg, want) {
		t.Errorf("Ready says %q; want it to name the command %q", msg, want)
	}
	h.waitEvent("needsgrant", computev1alpha1.ReasonUserDataNotGranted)
	if n := h.sim.Calls("RunInstances"); n != 0 {
		t.Fatalf("RunInstances called %d times without the namespace's grant", n)
	}

	h.grantUserData(opNS)
	got = h.waitReady("needsgrant")
	if ud := string(h.simInstance(got.Status.InstanceID).UserData); ud != secretUserData {
		t.Errorf("instance user data %q, want the Secret's", ud)
	}
}

// TestUserDataFromNeverReadsASecretOfTheOperatorsNamespace runs an OwnNamespace
// install: the tenant's objects live in the operator's namespace, next to its
// credentials (under a name of the administrator's choosing, as the Helm chart allows),
// and the namespace granted reading its Secrets. No Secret there is read, whatever its
// name; a ConfigMap is, so the refusal is the rule's, not RBAC's.
func TestUserDataFromNeverReadsASecretOfTheOperatorsNamespace(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.stopManager()
	h.opts.tweak = asOperator(t, h.ns, "ec2-operator-aws-credentials")
	h.startManager()
	h.grantUserData(h.ns)
	h.createSecret("aws-keys", "credentials", "[default]\naws_secret_access_key = do-not-ship\n")
	h.createSecret("boot", "user-data", secretUserData)
	for name, secret := range map[string]string{"keys": "aws-keys", "boot": "boot"} {
		obj := h.instance(name)
		obj.Spec.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: secret, Key: "credentials"}}
		if secret == "boot" {
			obj.Spec.UserDataFrom.SecretKeyRef.Key = "user-data"
		}
		h.create(obj)
	}
	for _, name := range []string{"keys", "boot"} {
		got := h.waitCondition(name, computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonUserDataSourceRefused)
		if msg := findCondition(got, computev1alpha1.ConditionReady).Message; !strings.Contains(msg, "operator's own namespace") {
			t.Errorf("%s: Ready says %q; want the operator's namespace named", name, msg)
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "boot-cm", Namespace: h.ns}, Data: map[string]string{"user-data": secretUserData}}
	if err := h.k8s.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	ok := h.instance("fromconfigmap")
	ok.Spec.UserDataFrom = &computev1alpha1.UserDataSource{ConfigMapKeyRef: &computev1alpha1.ConfigMapKeySelector{Name: "boot-cm", Key: "user-data"}}
	h.create(ok)
	got := h.waitReady("fromconfigmap")
	if live := h.sim.Instances(); len(live) != 1 || live[0].ID != got.Status.InstanceID {
		t.Errorf("instances %+v, want only the ConfigMap's object's", live)
	}
	for _, name := range []string{"keys", "boot"} {
		if st := h.get(name).Status; st.InstanceID != "" || st.LastLaunchAttempt != nil {
			t.Errorf("%s, refused, recorded a launch: %+v", name, st)
		}
	}
}

// TestUserDataFromNeverReadsTokensEvenWhenGranted runs the operator in a namespace of
// its own: a tenant namespace that granted reading its Secrets still never has a
// ServiceAccount token read, while an ordinary Secret is.
func TestUserDataFromNeverReadsTokensEvenWhenGranted(t *testing.T) {
	t.Parallel()
	const opNS = "ec2-operator-system"
	h := newHarness(t, harnessOptions{tweak: asOperator(t, opNS)})
	h.grantUserData(opNS)
	token := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "builder-token", Namespace: h.ns,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "builder"}},
		Type: corev1.SecretTypeServiceAccountToken,
		Data: map[string][]byte{"token": []byte("a-kubernetes-token")},
	}
	if err := h.k8s.Create(context.Background(), token); err != nil {
		t.Fatal(err)
	}
	obj := h.instance("token")
	obj.Spec.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: "builder-token", Key: "token"}}
	h.create(obj)
	h.waitCondition("token", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonUserDataSourceRefused)

	h.createSecret("boot", "user-data", secretUserData)
	ok := h.instance("ordinary")
	ok.Spec.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: "boot", Key: "user-data"}}
	h.create(ok)
	got := h.waitReady("ordinary")
	// Only the ordinary Secret's object launched (a retried RunInstances under its
	// token may count twice in the call log, but launches one instance).
	if live := h.sim.Instances(); len(live) != 1 || live[0].ID != got.Status.InstanceID {
		t.Errorf("instances %+v, want only the ordinary Secret's object's", live)
	}
	if st := h.get("token").Status; st.InstanceID != "" || st.LastLaunchAttempt != nil {
		t.Errorf("the refused token object recorded a launch: %+v", st)
	}
	if ud := string(h.simInstance(got.Status.InstanceID).UserData); ud != secretUserData {
		t.Errorf("instance user data %q, want the ordinary Secret's", ud)
	}
}
