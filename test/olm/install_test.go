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

package olm

import (
	"sort"
	"strings"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ec2-operator/ec2-operator/internal/credentials"
	"github.com/ec2-operator/ec2-operator/internal/monitoring"
)

// deploymentStrategy returns the CSV's single deployment install strategy.
func deploymentStrategy(t *testing.T, csv *operatorsv1alpha1.ClusterServiceVersion) operatorsv1alpha1.StrategyDetailsDeployment {
	t.Helper()
	if csv.Spec.InstallStrategy.StrategyName != operatorsv1alpha1.InstallStrategyNameDeployment {
		t.Fatalf("install strategy = %q", csv.Spec.InstallStrategy.StrategyName)
	}
	s := csv.Spec.InstallStrategy.StrategySpec
	if len(s.DeploymentSpecs) != 1 {
		t.Fatalf("want one deployment in the CSV, got %d", len(s.DeploymentSpecs))
	}
	return s
}

// TestCSVInstallStrategyIsTheKustomizeDeployment: what OLM installs is exactly what
// `make deploy` installs (config/default): the same pod template, service account,
// ports, probes, security context, volumes, and the same RBAC.
func TestCSVInstallStrategyIsTheKustomizeDeployment(t *testing.T) {
	csv := loadCSV(t)
	strategy := deploymentStrategy(t, csv)
	objs := kustomize(t, "config/default")

	var dep appsv1.Deployment
	into(t, find(t, objs, "Deployment", managerSA).Object, &dep)
	got := strategy.DeploymentSpecs[0]
	if got.Name != dep.Name {
		t.Errorf("CSV deployment name = %q, want %q", got.Name, dep.Name)
	}
	if !equality.Semantic.DeepEqual(got.Spec.Template.Spec, dep.Spec.Template.Spec) {
		t.Errorf("CSV pod spec differs from config/default (run make bundle):\nCSV: %s\nconfig: %s",
			mustJSON(got.Spec.Template.Spec), mustJSON(dep.Spec.Template.Spec))
	}
	if !equality.Semantic.DeepEqual(got.Spec.Selector, dep.Spec.Selector) {
		t.Errorf("CSV selector %v differs from config/default %v", got.Spec.Selector, dep.Spec.Selector)
	}
	if dep.Spec.Template.Spec.ServiceAccountName != managerSA {
		t.Errorf("service account = %q, want %q", dep.Spec.Template.Spec.ServiceAccountName, managerSA)
	}

	// Permissions: the rules of every Role and ClusterRole bound to the manager's
	// service account in what the bundle is made from (config/manifests: config/default
	// without the all-namespaces role of `make deploy`), and nothing else.
	wantCluster, wantNS := boundRules(t, kustomize(t, "config/manifests"), managerSA)
	var gotCluster, gotNS []rbacv1.PolicyRule
	for _, p := range strategy.ClusterPermissions {
		switch p.ServiceAccountName {
		case managerSA:
			gotCluster = append(gotCluster, p.Rules...)
		default:
			t.Errorf("clusterPermissions for unexpected service account %q", p.ServiceAccountName)
		}
	}
	for _, p := range strategy.Permissions {
		if p.ServiceAccountName != managerSA {
			t.Errorf("permissions for unexpected service account %q", p.ServiceAccountName)
		}
		gotNS = append(gotNS, p.Rules...)
	}
	if !sameRules(gotCluster, wantCluster) {
		t.Errorf("clusterPermissions differ from the ClusterRoles bound in config:\nCSV: %s\nconfig: %s", mustJSON(gotCluster), mustJSON(wantCluster))
	}
	if !sameRules(gotNS, wantNS) {
		t.Errorf("permissions differ from the Roles bound in config:\nCSV: %s\nconfig: %s", mustJSON(gotNS), mustJSON(wantNS))
	}
	if !hasRule(gotCluster, "cloudcredential.openshift.io", "credentialsrequests", "create") {
		t.Error("the manager may not create CredentialsRequests (token-auth-aws)")
	}
	// No Secret, ConfigMap or Lease in the CSV at all: OLM grants permissions in every
	// target namespace and lifts them cluster-wide for AllNamespaces. What the manager
	// needs in its own namespace are bundle objects (checked below).
	for _, res := range []string{"secrets", "configmaps", "serviceaccounts"} {
		for _, verb := range []string{"get", "list", "watch", "create", "update"} {
			if hasRule(gotNS, "", res, verb) || hasRule(gotCluster, "", res, verb) {
				t.Errorf("the CSV lets the manager %s %s", verb, res)
			}
		}
	}
	if hasRule(gotNS, "coordination.k8s.io", "leases", "create") || hasRule(gotCluster, "coordination.k8s.io", "leases", "create") {
		t.Error("the CSV lets the manager create Leases; leader election's Role is a bundle object of its own namespace")
	}
	checkOwnNamespaceRBACIsBundled(t)
	// Scope follows the OperatorGroup: OLM grants permissions in the target namespaces
	// (and lifts them to cluster scope only for AllNamespaces), so EC2Instances and
	// events must not be in clusterPermissions.
	for _, r := range []struct{ group, resource, verb string }{
		{"compute.ec2-operator.dev", "ec2instances", "watch"}, {"compute.ec2-operator.dev", "ec2instances/status", "patch"},
		{"events.k8s.io", "events", "create"},
	} {
		if !hasRule(gotNS, r.group, r.resource, r.verb) || hasRule(gotCluster, r.group, r.resource, r.verb) {
			t.Errorf("%s %s/%s must be a namespaced permission, not a cluster permission", r.verb, r.group, r.resource)
		}
	}
}

// checkOwnNamespaceRBACIsBundled: the Roles and RoleBindings of the manager's own
// namespace are in the bundle as plain objects, exactly as config/bundle/own-namespace
// renders them, with no namespace (OLM creates them in the install namespace) and
// bound to the manager's ServiceAccount of that namespace.
func checkOwnNamespaceRBACIsBundled(t *testing.T) {
	t.Helper()
	bundled := map[string]*unstructured.Unstructured{}
	for _, o := range loadBundle(t).Objects {
		if o.GetKind() == "Role" || o.GetKind() == "RoleBinding" {
			bundled[o.GetKind()+"/"+o.GetName()] = o
		}
	}
	want := kustomize(t, "config/bundle/own-namespace")
	if len(bundled) != len(want) {
		t.Errorf("the bundle has %d Roles and RoleBindings, config/bundle/own-namespace %d (run make bundle)", len(bundled), len(want))
	}
	for _, w := range want {
		got, ok := bundled[w.GetKind()+"/"+w.GetName()]
		if !ok {
			t.Errorf("the bundle lacks %s %s (run make bundle)", w.GetKind(), w.GetName())
			continue
		}
		if got.GetNamespace() != "" {
			t.Errorf("bundled %s %s names namespace %q; OLM must create it in the install namespace", w.GetKind(), w.GetName(), got.GetNamespace())
		}
		for _, field := range []string{"rules", "roleRef", "subjects"} {
			if mustJSON(got.Object[field]) != mustJSON(w.Object[field]) {
				t.Errorf("bundled %s %s %s differ from config (run make bundle)", w.GetKind(), w.GetName(), field)
			}
		}
		if w.GetKind() == "RoleBinding" {
			var b rbacv1.RoleBinding
			into(t, w.Object, &b)
			if len(b.Subjects) != 1 || b.Subjects[0].Name != managerSA || b.Subjects[0].Namespace != "" {
				t.Errorf("RoleBinding %s binds %+v, want the manager's ServiceAccount of its own namespace", b.Name, b.Subjects)
			}
		}
	}
}

// TestOwnNamespaceRoleNamesTheOperatorsObjects: the own-namespace Role grants each
// object by the name the code uses, so a renamed constant cannot silently leave the
// manager without access (or with access to a name it no longer owns).
func TestOwnNamespaceRoleNamesTheOperatorsObjects(t *testing.T) {
	var role rbacv1.Role
	into(t, find(t, kustomize(t, "config/bundle/own-namespace"), "Role", "ec2-operator-manager-own-namespace-role").Object, &role)
	objects := monitoring.DefaultObjects(installNS)
	want := map[string]string{
		"secrets/" + credentials.DefaultSecretName:  "get",
		"secrets/" + objects.TokenSecret:            "get,update",
		"servicemonitors/" + objects.ServiceMonitor: "get,update",
	}
	got := map[string]string{}
	for _, r := range role.Rules {
		if len(r.ResourceNames) == 0 {
			t.Errorf("own-namespace rule %v names no object", r)
		}
		for _, res := range r.Resources {
			for _, name := range r.ResourceNames {
				verbs := append([]string(nil), r.Verbs...)
				sort.Strings(verbs)
				got[res+"/"+name] = strings.Join(verbs, ",")
			}
		}
	}
	if mustJSON(got) != mustJSON(want) {
		t.Errorf("own-namespace Role grants %v, the code needs %v", got, want)
	}
}

// TestMakeDeployGrantsTheNamespacedRulesInEveryNamespace: `make deploy` watches every
// namespace, so its all-namespaces ClusterRole must hold exactly the rules of the
// generated Role (EC2Instances and events), no more and no fewer.
func TestMakeDeployGrantsTheNamespacedRulesInEveryNamespace(t *testing.T) {
	objs := kustomize(t, "config/default")
	var role rbacv1.Role
	into(t, find(t, objs, "Role", "ec2-operator-manager-role").Object, &role)
	var want []rbacv1.PolicyRule
	for _, r := range role.Rules {
		if len(r.ResourceNames) == 0 && (contains(r.APIGroups, "compute.ec2-operator.dev") || contains(r.APIGroups, "events.k8s.io")) {
			want = append(want, r)
		}
	}
	var all rbacv1.ClusterRole
	into(t, find(t, objs, "ClusterRole", "ec2-operator-manager-all-namespaces-role").Object, &all)
	if !sameRules(all.Rules, want) {
		t.Errorf("the all-namespaces role differs from the generated Role's EC2Instance and event rules:\nall-namespaces: %s\nRole: %s",
			mustJSON(all.Rules), mustJSON(want))
	}
	if wantCluster, _ := boundRules(t, objs, managerSA); !sameRules(wantCluster, append(clusterRulesOf(t, objs, "ec2-operator-manager-role"), append(all.Rules, clusterRulesOf(t, objs, "ec2-operator-metrics-auth-role")...)...)) {
		t.Errorf("config/default binds other cluster rules to the manager than manager-role, the all-namespaces role and metrics auth: %s", mustJSON(wantCluster))
	}
}

// clusterRulesOf returns a ClusterRole's rules.
func clusterRulesOf(t *testing.T, objs []*unstructured.Unstructured, name string) []rbacv1.PolicyRule {
	t.Helper()
	var r rbacv1.ClusterRole
	into(t, find(t, objs, "ClusterRole", name).Object, &r)
	return r.Rules
}

// boundRules collects the rules of the roles bound to sa.
func boundRules(t *testing.T, objs []*unstructured.Unstructured, sa string) (cluster, namespaced []rbacv1.PolicyRule) {
	t.Helper()
	roles := map[string][]rbacv1.PolicyRule{}
	for _, o := range objs {
		if o.GetKind() == "Role" || o.GetKind() == "ClusterRole" {
			var r rbacv1.ClusterRole
			into(t, o.Object, &r)
			roles[o.GetKind()+"/"+o.GetName()] = r.Rules
		}
	}
	for _, o := range objs {
		if o.GetKind() != "RoleBinding" && o.GetKind() != "ClusterRoleBinding" {
			continue
		}
		var b rbacv1.RoleBinding
		into(t, o.Object, &b)
		bound := false
		for _, s := range b.Subjects {
			bound = bound || (s.Kind == "ServiceAccount" && s.Name == sa)
		}
		if !bound {
			continue
		}
		rules, ok := roles[b.RoleRef.Kind+"/"+b.RoleRef.Name]
		if !ok {
			t.Fatalf("%s %s refers to missing %s %s", o.GetKind(), o.GetName(), b.RoleRef.Kind, b.RoleRef.Name)
		}
		if b.RoleRef.Kind == "ClusterRole" && o.GetKind() == "ClusterRoleBinding" {
			cluster = append(cluster, rules...)
		} else {
			namespaced = append(namespaced, rules...)
		}
	}
	return cluster, namespaced
}

func ruleKey(r rbacv1.PolicyRule) string {
	parts := []string{}
	for _, l := range [][]string{r.APIGroups, r.Resources, r.ResourceNames, r.NonResourceURLs, r.Verbs} {
		c := append([]string(nil), l...)
		sort.Strings(c)
		parts = append(parts, strings.Join(c, ","))
	}
	return strings.Join(parts, "|")
}

func sameRules(a, b []rbacv1.PolicyRule) bool {
	key := func(rs []rbacv1.PolicyRule) string {
		var ks []string
		for _, r := range rs {
			ks = append(ks, ruleKey(r))
		}
		sort.Strings(ks)
		return strings.Join(ks, "\n")
	}
	return key(a) == key(b)
}

func hasRule(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	for _, r := range rules {
		if contains(r.APIGroups, group) && contains(r.Resources, resource) && contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// TestManagerPodMeetsRestrictedPodSecurity checks the pod against the restricted Pod
// Security Standard and OpenShift's restricted-v2 SCC (no fixed UID or fsGroup).
func TestManagerPodMeetsRestrictedPodSecurity(t *testing.T) {
	pod := deploymentStrategy(t, loadCSV(t)).DeploymentSpecs[0].Spec.Template.Spec
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Error("pod securityContext.runAsNonRoot is not true")
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod seccompProfile is not RuntimeDefault")
	}
	if psc != nil && (psc.RunAsUser != nil || psc.FSGroup != nil) {
		t.Error("pod pins runAsUser or fsGroup; OpenShift's restricted-v2 SCC assigns them")
	}
	if pod.AutomountServiceAccountToken != nil && !*pod.AutomountServiceAccountToken {
		t.Error("the manager needs its service account token to reach the API server")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(pod.Containers))
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("container has no securityContext")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation is not false")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("readOnlyRootFilesystem is not true")
	case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) != 0:
		t.Error("capabilities are not drop: [ALL]")
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("container is privileged")
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if c.Resources.Requests.Name(r, "").IsZero() || c.Resources.Limits.Name(r, "").IsZero() {
			t.Errorf("%s request or limit missing", r)
		}
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Error("liveness probe is not GET /healthz")
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Error("readiness probe is not GET /readyz")
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["https"] != 8443 || ports["health"] != 8081 {
		t.Errorf("container ports = %v, want https:8443 and health:8081", ports)
	}
	for _, probe := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
		if probe != nil && probe.HTTPGet != nil && probe.HTTPGet.Port.String() != "health" {
			t.Errorf("probe port %s is not the health port", probe.HTTPGet.Port.String())
		}
	}
	if !contains(c.Args, "--health-probe-bind-address=:8081") || !contains(c.Args, "--metrics-bind-address=:8443") || !contains(c.Args, "--leader-elect") {
		t.Errorf("args %v lack the probe/metrics/leader-election flags matching the ports", c.Args)
	}
}

// TestManagerMountsWhatOpenShiftProvides: the service-ca serving certificate for the
// metrics endpoint, a writable /tmp on the read-only root filesystem, and the projected
// service account token CCO's web identity profile points at.
func TestManagerMountsWhatOpenShiftProvides(t *testing.T) {
	objs := kustomize(t, "config/default")
	var dep appsv1.Deployment
	into(t, find(t, objs, "Deployment", managerSA).Object, &dep)
	pod := dep.Spec.Template.Spec
	c := pod.Containers[0]

	var svc corev1.Service
	into(t, find(t, objs, "Service", metricsService).Object, &svc)
	certSecret := svc.Annotations["service.beta.openshift.io/serving-cert-secret-name"]
	if certSecret == "" {
		t.Fatal("the metrics Service does not ask service-ca for a serving certificate")
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != "https" || svc.Spec.Ports[0].TargetPort.String() != "https" {
		t.Errorf("metrics Service ports = %+v, want https -> container port https", svc.Spec.Ports)
	}
	for k, v := range svc.Spec.Selector {
		if dep.Spec.Template.Labels[k] != v {
			t.Errorf("metrics Service selector %s=%s does not select the manager pod", k, v)
		}
	}

	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
	}

	const certDir = "/tmp/k8s-metrics-server/metrics-certs"
	certMount, ok := mounts[certDir]
	if !ok {
		t.Fatalf("nothing mounted at %s", certDir)
	}
	certVol := volumes[certMount.Name]
	if certVol.Secret == nil || certVol.Secret.SecretName != certSecret {
		t.Errorf("%s is not the Secret %q that service-ca writes", certDir, certSecret)
	} else if certVol.Secret.Optional == nil || !*certVol.Secret.Optional {
		t.Error("the metrics certificate Secret must be optional: it only exists on OpenShift")
	}
	if !contains(c.Args, "--metrics-cert-path="+certDir) {
		t.Errorf("args %v do not point --metrics-cert-path at %s", c.Args, certDir)
	}

	if tmp, ok := mounts["/tmp"]; !ok || volumes[tmp.Name].EmptyDir == nil {
		t.Error("/tmp is not a writable emptyDir")
	}

	tokenDir := strings.TrimSuffix(credentials.CloudTokenPath, "/token")
	tokenMount, ok := mounts[tokenDir]
	if !ok {
		t.Fatalf("nothing mounted at %s (credentials.CloudTokenPath)", tokenDir)
	}
	proj := volumes[tokenMount.Name].Projected
	if proj == nil || len(proj.Sources) != 1 || proj.Sources[0].ServiceAccountToken == nil {
		t.Fatalf("%s is not a projected service account token", tokenDir)
	}
	if tok := proj.Sources[0].ServiceAccountToken; tok.Audience != "openshift" || tok.Path != "token" {
		t.Errorf("projected token audience=%q path=%q, want openshift and token", tok.Audience, tok.Path)
	}

	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if e := env["WATCH_NAMESPACE"]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil ||
		e.ValueFrom.FieldRef.FieldPath != "metadata.annotations['olm.targetNamespaces']" {
		t.Error("WATCH_NAMESPACE does not come from olm.targetNamespaces")
	}
	if e := env[credentials.NamespaceEnv]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "metadata.namespace" {
		t.Errorf("%s does not come from metadata.namespace", credentials.NamespaceEnv)
	}
	if e := env[credentials.ServiceAccountEnv]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "spec.serviceAccountName" {
		t.Errorf("%s does not come from spec.serviceAccountName", credentials.ServiceAccountEnv)
	}
	if _, ok := env[credentials.RoleARNEnv]; ok {
		t.Errorf("%s must not be set in the Deployment: OLM sets it from the Subscription when the admin gives a role ARN", credentials.RoleARNEnv)
	}
}
