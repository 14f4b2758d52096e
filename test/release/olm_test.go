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

package release

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/devtools"
	"github.com/ec2-operator/ec2-operator/internal/images"
	"github.com/ec2-operator/ec2-operator/internal/rbactest"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// olmNamespace is where OLM's catalog operator runs and keeps global catalogs, as on
// an upstream OLM install (OpenShift uses openshift-marketplace).
const olmNamespace = "olm"

// TestOLMResolvesTheOperatorFromTheCatalogImageAndUnpacksTheDigestPinnedBundle installs
// from the release images the way OperatorHub does:
//
//  1. the catalog image's own entrypoint (opm serve, chrooted, as the image's user)
//     serves the catalog over gRPC;
//  2. OLM's real catalog operator (built from operator-lifecycle-manager) resolves a
//     Subscription to package ec2-operator, channel alpha, from a CatalogSource whose
//     address points at it, and starts a bundle-unpack Job that names the bundle image
//     by the digest the catalog holds;
//  3. there is no kubelet here, so the test runs that Job's containers itself, exactly
//     as its pod spec says: the bundle image is pulled by that digest from a registry
//     the release was pushed to (standing in for quay.io, as a digest mirror would),
//     its /manifests and /metadata are copied into the bundle volume, and the extract
//     container's own command (opm alpha bundle extract, from the catalog image) writes
//     the ConfigMap; then it marks the Job complete, as the Job controller would;
//  4. the catalog operator reads the bundle and writes an InstallPlan for
//     ec2-operator.v<VERSION>, approves it (Automatic) and creates the CSV, the CRD,
//     the RBAC and the monitoring objects;
//  5. OLM's olm operator (also built from the module) takes the CSV through its
//     requirements and creates the operator's Deployment, running the operator
//     image by the digest the bundle pins.
//
// It stops there: the Deployment's pod needs a kubelet, which the test control plane
// does not have (TestOperatorImageRuns... runs the same image's filesystem, and
// test/e2e the manager binary). The whole path with real pods, OLM's operators among
// them, and the bundle unpack Job run by the kubelet is test/cluster's TestCluster
// ("OwnNamespace install from the catalog image", make test-cluster); this test stays
// because it runs in make test-release, in seconds, without root's node.
func TestOLMResolvesTheOperatorFromTheCatalogImageAndUnpacksTheDigestPinnedBundle(t *testing.T) {
	catalogOperator := olmBinary(t, "OLM_CATALOG", "catalog")
	olmOperator := olmBinary(t, "OLM_OPERATOR", "olm")
	k8s := olmClient(t)
	installOLMCRDs(t)
	ctx := context.Background()
	for _, ns := range []string{olmNamespace} {
		if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
			t.Fatal(err)
		}
	}
	target := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "olm-install-"}}
	if err := k8s.Create(ctx, target); err != nil {
		t.Fatal(err)
	}

	// 1. The catalog, served by the catalog image's entrypoint and command.
	catImg, catCfg := hostImage(t, "catalog")
	catRootfs := unpack(t, catImg)
	grpcAddr := simtest.FreeAddr(t)
	_, port, _ := strings.Cut(grpcAddr, ":")
	argv := append(append([]string{}, catCfg.Config.Entrypoint...), catCfg.Config.Cmd...)
	serve := startContainer(t, "opm-serve", catRootfs, catCfg.Config.User, append(argv, "--port="+port), catCfg.Config.Env)
	eventually(t, 60*time.Second, func() string {
		select {
		case <-serve.done:
			t.Fatalf("opm serve exited: %v", serve.err)
		default:
		}
		if !strings.Contains(serve.out.String(), "serving registry") {
			return "opm serve has not started serving"
		}
		return ""
	})
	if out := serve.out.String(); strings.Contains(out, "rebuilding cache") || strings.Contains(out, "cache requires rebuild") {
		t.Errorf("opm serve rebuilt the cache that the image should hold pre-built:\n%s", out)
	}

	// 2. OLM's catalog operator and the objects a user (or the console) creates.
	kubeconfig := env.Kubeconfig
	// Both operators serve their metrics on :8080; the second one logs that the port
	// is taken and carries on, as it does not need it here.
	startProcess(t, "catalog operator", catalogOperator, "--namespace", olmNamespace, "--kubeconfig", kubeconfig,
		"--configmapServerImage", "none", "--opmImage", "opm-from-the-catalog-image", "--util-image", "none",
		"--writeStatusName", "", "--interval", "10s")
	startProcess(t, "olm operator", olmOperator, "--namespace", olmNamespace, "--writeStatusName", "",
		"--writePackageServerStatusName", "", "--interval", "10s")

	catsrc := &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Name: "ec2-operator-catalog", Namespace: olmNamespace},
		Spec: operatorsv1alpha1.CatalogSourceSpec{
			SourceType:  operatorsv1alpha1.SourceTypeGrpc,
			Address:     grpcAddr,
			DisplayName: "EC2 Operator",
			Publisher:   "ec2-operator project",
		},
	}
	og := &operatorsv1.OperatorGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "ec2-operator", Namespace: target.Name},
		Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: []string{target.Name}},
	}
	sub := &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: "ec2-operator", Namespace: target.Name},
		Spec: &operatorsv1alpha1.SubscriptionSpec{
			CatalogSource: catsrc.Name, CatalogSourceNamespace: olmNamespace,
			Package: "ec2-operator", Channel: makeVar(t, "DEFAULT_CHANNEL"),
			InstallPlanApproval: operatorsv1alpha1.ApprovalAutomatic,
		},
	}
	for _, obj := range []client.Object{catsrc, og, sub} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}

	// The Job that unpacks the bundle names the bundle image of the catalog, by digest.
	wantBundle := catalogBundleImage(t)
	var job batchv1.Job
	eventually(t, 120*time.Second, func() string {
		jobs := &batchv1.JobList{}
		if err := k8s.List(ctx, jobs, client.InNamespace(olmNamespace)); err != nil {
			return err.Error()
		}
		for _, j := range jobs.Items {
			for _, c := range j.Spec.Template.Spec.InitContainers {
				if c.Name == "pull" {
					job = j
					return ""
				}
			}
		}
		got := &operatorsv1alpha1.Subscription{}
		_ = k8s.Get(ctx, client.ObjectKeyFromObject(sub), got)
		return fmt.Sprintf("no bundle unpack Job yet; subscription state %q, conditions %+v", got.Status.State, got.Status.Conditions)
	})
	pull := containerNamed(t, job.Spec.Template.Spec.InitContainers, "pull")
	if pull.Image != wantBundle {
		t.Fatalf("the unpack Job pulls %s, the catalog names %s", pull.Image, wantBundle)
	}
	if !strings.Contains(pull.Image, "@sha256:") {
		t.Fatalf("the bundle image %s is not pinned by digest", pull.Image)
	}

	// 3. The kubelet's part: run the Job's containers as its pod spec says.
	runUnpackJob(t, k8s, &job, catRootfs, kubeconfig)

	// 4. OLM reads the unpacked bundle and plans and starts the install.
	wantCSV := "ec2-operator.v" + makeVar(t, "VERSION")
	var plan operatorsv1alpha1.InstallPlan
	eventually(t, 120*time.Second, func() string {
		plans := &operatorsv1alpha1.InstallPlanList{}
		if err := k8s.List(ctx, plans, client.InNamespace(target.Name)); err != nil {
			return err.Error()
		}
		for _, p := range plans.Items {
			for _, name := range p.Spec.ClusterServiceVersionNames {
				if name == wantCSV && len(p.Status.Plan) > 0 {
					plan = p
					return ""
				}
			}
		}
		return fmt.Sprintf("no InstallPlan with steps for %s yet (%d plans)", wantCSV, len(plans.Items))
	})
	t.Logf("InstallPlan %s: phase %s, %d steps", plan.Name, plan.Status.Phase, len(plan.Status.Plan))
	kinds := map[string]bool{}
	for _, step := range plan.Status.Plan {
		kinds[step.Resource.Kind] = true
	}
	for _, kind := range []string{"ClusterServiceVersion", "CustomResourceDefinition", "ServiceMonitor", "PrometheusRule", "ConsoleYAMLSample", "ConsoleQuickStart"} {
		if !kinds[kind] {
			t.Errorf("the InstallPlan has no %s step: %v", kind, kinds)
		}
	}

	var csv operatorsv1alpha1.ClusterServiceVersion
	eventually(t, 120*time.Second, func() string {
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: target.Name, Name: wantCSV}, &csv); err != nil {
			return "the CSV is not created yet: " + err.Error()
		}
		return ""
	})
	image := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers[0].Image
	operatorDigest, err := images.LayoutDigest(layoutDir(t, "operator"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(image, "@sha256:") || csv.Annotations["containerImage"] != image {
		t.Errorf("the installed CSV runs %s (containerImage %s): want one image, by digest", image, csv.Annotations["containerImage"])
	}
	if !strings.HasSuffix(image, "@"+operatorDigest.String()) {
		// make images stages the bundle pinned to the images it built, so the catalog
		// installs exactly these sources' operator.
		t.Errorf("the installed CSV runs %s, but bin/images holds operator %s: the staged bundle (make images) must pin the image built now", image, operatorDigest)
	}

	// 5. The olm operator installs the CSV: the Deployment runs the pinned image.
	deployment := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Name
	eventually(t, 120*time.Second, func() string {
		var dep appsv1.Deployment
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: target.Name, Name: deployment}, &dep); err != nil {
			got := &operatorsv1alpha1.ClusterServiceVersion{}
			_ = k8s.Get(ctx, client.ObjectKeyFromObject(&csv), got)
			return fmt.Sprintf("no Deployment %s yet: CSV phase %s (%s): %s", deployment, got.Status.Phase, got.Status.Reason, got.Status.Message)
		}
		if got := dep.Spec.Template.Spec.Containers[0].Image; got != image {
			t.Fatalf("the Deployment runs %s, the CSV says %s", got, image)
		}
		return ""
	})
	t.Logf("OLM created Deployment %s/%s running %s; its pod needs a kubelet, which envtest has not", target.Name, deployment, image)

	// 6. Monitoring in the namespace OLM installed into (not the suggested one): the
	// ServiceMonitor's token Secret is there, an empty Opaque Secret for the manager to
	// fill, and the manager's own-namespace Roles are bound there, not in the CSV.
	eventually(t, 120*time.Second, func() string {
		var secret corev1.Secret
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: target.Name, Name: "ec2-operator-metrics-token"}, &secret); err != nil {
			return "the metrics token Secret: " + err.Error()
		}
		if secret.Type != corev1.SecretTypeOpaque {
			t.Fatalf("the metrics token Secret is of type %s, want Opaque", secret.Type)
		}
		var binding rbacv1.RoleBinding
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: target.Name, Name: "ec2-operator-manager-own-namespace-rolebinding"}, &binding); err != nil {
			return "the manager's own-namespace RoleBinding: " + err.Error()
		}
		return ""
	})

	// OLM applies the InstallPlan's steps (the ServiceMonitor among them) until the plan
	// is complete; the manager's correction is for the objects as installed.
	eventually(t, 120*time.Second, func() string {
		got := &operatorsv1alpha1.InstallPlan{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(&plan), got); err != nil {
			return err.Error()
		}
		if got.Status.Phase != operatorsv1alpha1.InstallPlanPhaseComplete {
			return fmt.Sprintf("InstallPlan phase %s", got.Status.Phase)
		}
		return ""
	})

	// 7. The manager from the operator image, as the Deployment's ServiceAccount with
	// only the RBAC OLM generated for this OwnNamespace install (no cluster-wide access
	// to EC2Instances), watching its namespace: an EC2Instance becomes Ready, and the
	// ServiceMonitor OLM created names this namespace's metrics Service.
	sa := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.ServiceAccountName
	kubeconfigAs := serviceAccountKubeconfig(t, k8s, target.Name, sa)
	img, cf := hostImage(t, "operator")
	run := imageRun{
		name: "manager-as-olm-installs-it", namespace: target.Name, kubeconfig: kubeconfigAs,
		env: []string{"AWS_ENDPOINT_URL_EC2=" + env.SimURL, "POD_NAMESPACE=" + target.Name, "SERVICE_ACCOUNT_NAME=" + sa},
	}
	want := "ec2-operator-controller-manager-metrics-service." + target.Name + ".svc"
	serverName := func() string {
		sm := &unstructured.Unstructured{}
		sm.SetGroupVersionKind(schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: "ServiceMonitor"})
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: target.Name, Name: "ec2-operator-controller-manager-metrics-monitor"}, sm); err != nil {
			return "the ServiceMonitor OLM installed: " + err.Error()
		}
		endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		for _, e := range endpoints {
			if got, _, _ := unstructured.NestedString(e.(map[string]any), "tlsConfig", "serverName"); got != want {
				return fmt.Sprintf("ServiceMonitor serverName %q, want %q", got, want)
			}
		}
		return ""
	}
	// OLM's catalog operator may apply the bundle's ServiceMonitor again after the
	// manager corrected it (seen here while the CSV cannot finish installing); the
	// manager checks it every 15 seconds, so both hold together while it runs.
	runImageManager(t, img, cf, run, func(c *metav1.Condition) string {
		if c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Sprintf("Ready %+v, want True", c)
		}
		return serverName()
	})
	for _, verb := range []string{"list", "watch"} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + target.Name + ":" + sa,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: "compute.ec2-operator.dev", Resource: "ec2instances", Verb: verb},
		}}
		if err := k8s.Create(ctx, sar); err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed {
			t.Errorf("an OwnNamespace install lets the manager %s EC2Instances in every namespace", verb)
		}
	}
	// 8. What OLM actually created lets the manager create no Secret or token, list or
	// watch no Secret, and read no Secret outside its namespace.
	other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "olm-other-"}}
	if err := k8s.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	rbactest.CheckManager(t, k8s, "OwnNamespace (as OLM created it)", target.Name, target.Name, other.Name)

	// 9. The same install turned AllNamespaces (the OperatorGroup targets every
	// namespace): OLM lifts the CSV's permissions to a ClusterRole, and still the
	// manager may create no Secret or token, and list, watch or read none elsewhere.
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(og), og); err != nil {
		t.Fatal(err)
	}
	og.Spec.TargetNamespaces = nil
	if err := k8s.Update(ctx, og); err != nil {
		t.Fatal(err)
	}
	elsewhere := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "olm-tenant-"}}
	if err := k8s.Create(ctx, elsewhere); err != nil {
		t.Fatal(err)
	}
	eventually(t, 120*time.Second, func() string {
		if !rbactest.May(t, k8s, target.Name, rbactest.Access{Verb: "watch", Group: "compute.ec2-operator.dev", Resource: "ec2instances", Namespace: elsewhere.Name}) {
			got := &operatorsv1alpha1.ClusterServiceVersion{}
			_ = k8s.Get(ctx, client.ObjectKeyFromObject(&csv), got)
			return fmt.Sprintf("OLM has not granted the AllNamespaces install in %s yet: CSV phase %s (%s)", elsewhere.Name, got.Status.Phase, got.Status.Message)
		}
		return ""
	})
	rbactest.CheckManager(t, k8s, "AllNamespaces (as OLM created it)", target.Name, elsewhere.Name, other.Name)
}

// serviceAccountKubeconfig returns a kubeconfig for the test control plane that
// authenticates with a token of the ServiceAccount.
func serviceAccountKubeconfig(t *testing.T, k8s client.Client, ns, name string) []byte {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	if err := k8s.SubResource("token").Create(context.Background(), sa, tr); err != nil {
		t.Fatalf("TokenRequest for %s/%s: %v", ns, name, err)
	}
	kc, err := clientcmd.LoadFromFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, ai := range kc.AuthInfos {
		*ai = clientcmdapi.AuthInfo{Token: tr.Status.Token}
	}
	data, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// startProcess runs a program of the test (OLM's operators) with the control plane's
// kubeconfig, stops it when the test ends, and shows its log when the test failed.
func startProcess(t *testing.T, name, bin string, args ...string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "process.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
		if t.Failed() {
			data, _ := os.ReadFile(logPath)
			t.Logf("%s log (tail):\n%s", name, tail(string(data), 6000))
		}
	})
}

// olmBinary is one of OLM's operators, which `make olm-tools` builds: the path in the
// environment variable, else bin/cluster/olm-v0.40.0/<name>.
func olmBinary(t *testing.T, envVar, name string) string {
	t.Helper()
	bin := os.Getenv(envVar)
	if bin == "" {
		bin = filepath.Join(root, "bin", "cluster", "olm-v0.40.0", name)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no %s at %s: run `make olm-tools` (make test-release does): %v", name, bin, err)
	}
	return bin
}

// olmClient is a cluster-admin client that knows OLM's and Kubernetes' types.
func olmClient(t *testing.T) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, operatorsv1alpha1.AddToScheme, operatorsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(env.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// installOLMCRDs installs OLM's CRDs from the operator-lifecycle-manager module at the
// version the Makefile builds the catalog operator from, the monitoring CRDs the
// bundle's ServiceMonitor and PrometheusRule need, and the console CRDs of its
// ConsoleYAMLSamples and ConsoleQuickStart (an InstallPlan with a kind the API server
// does not serve fails).
func installOLMCRDs(t *testing.T) {
	t.Helper()
	dirs := []string{filepath.Join(moduleDir(t, "github.com/operator-framework/operator-lifecycle-manager", makeVar(t, "OLM_VERSION")), "deploy", "chart", "crds")}
	po := moduleDir(t, "github.com/prometheus-operator/prometheus-operator", "v0.85.0")
	for _, f := range []string{"monitoring.coreos.com_servicemonitors.yaml", "monitoring.coreos.com_prometheusrules.yaml"} {
		dirs = append(dirs, filepath.Join(po, "example", "prometheus-operator-crd", f))
	}
	console := moduleDir(t, "github.com/openshift/api", makeVar(t, "OPENSHIFT_API_VERSION"))
	for _, f := range []string{"00_consoleyamlsamples.crd.yaml", "00_consolequickstarts.crd.yaml"} {
		dirs = append(dirs, filepath.Join(console, "console", "v1", "zz_generated.crd-manifests", f))
	}
	if _, err := envtest.InstallCRDs(env.Kube.Config, envtest.CRDInstallOptions{Paths: dirs, ErrorIfPathMissing: true}); err != nil {
		t.Fatal(err)
	}
}

// moduleDir downloads a Go module (from the module cache when present) and returns its
// directory.
func moduleDir(t *testing.T, module, version string) string {
	t.Helper()
	dir, err := devtools.ModuleDir(module + "@" + version)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// catalogBundleImage is the bundle image reference in catalog/.
func catalogBundleImage(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(manifestsRoot, "catalog", "ec2-operator", "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---") {
		var obj struct {
			Schema string `json:"schema"`
			Image  string `json:"image"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err == nil && obj.Schema == "olm.bundle" {
			return obj.Image
		}
	}
	t.Fatal("catalog/ has no olm.bundle")
	return ""
}

func containerNamed(t *testing.T, cs []corev1.Container, name string) corev1.Container {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("the unpack Job has no %s container", name)
	return corev1.Container{}
}

// runUnpackJob does for OLM's bundle unpack Job what a kubelet and the Job controller
// would: the pull container's image is pulled by digest (from a local registry the
// bundle image was pushed to, standing in for its real registry as a digest mirror
// does) and its /manifests and /metadata copied into the bundle volume, which is what
// its /util/cpb command does; the extract container's command runs with the volume
// where it expects it; and the Job is marked complete.
func runUnpackJob(t *testing.T, k8s client.Client, job *batchv1.Job, catalogRootfs, kubeconfig string) {
	t.Helper()
	ctx := context.Background()
	pull := containerNamed(t, job.Spec.Template.Spec.InitContainers, "pull")
	ref, err := name.NewDigest(pull.Image)
	if err != nil {
		t.Fatalf("the bundle image %s: %v", pull.Image, err)
	}
	srv := httptest.NewServer(quietRegistry())
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	bundleIdx, _, err := images.ReadLayout(layoutDir(t, "bundle"))
	if err != nil {
		t.Fatal(err)
	}
	mirror := u.Host + "/" + ref.Context().RepositoryStr()
	if _, err := images.Push(ctx, bundleIdx, mirror, authn.DefaultKeychain); err != nil {
		t.Fatal(err)
	}
	mirrored, err := name.NewDigest(mirror + "@" + ref.DigestStr())
	if err != nil {
		t.Fatal(err)
	}
	pulled, err := images.Pull(ctx, mirrored, authn.DefaultKeychain)
	if err != nil {
		t.Fatalf("the digest the Job names is not the bundle image built from bundle/ (run make catalog): %v", err)
	}
	img, err := images.ImageFor(pulled, hostPlatform(t))
	if err != nil {
		t.Fatal(err)
	}
	volume := unpack(t, img)

	extract := containerNamed(t, job.Spec.Template.Spec.Containers, "extract")
	args := append([]string{}, extract.Command[1:]...)
	for i, a := range args {
		if a == "/bundle/" {
			args[i] = volume + "/"
		}
	}
	// In the pod the extract container reaches the API server with its service
	// account; here it gets a kubeconfig instead.
	args = append(args, "--kubeconfig", kubeconfig)
	cmd := exec.Command(filepath.Join(catalogRootfs, "bin", extract.Command[0]), args...)
	for _, e := range extract.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the extract container's command %v: %v\n%s", extract.Command, err, out)
	}

	now := metav1.Now()
	job.Status.StartTime = &now
	job.Status.CompletionTime = &now
	job.Status.Succeeded = 1
	job.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now},
	}
	if err := k8s.Status().Update(ctx, job); err != nil {
		t.Fatalf("marking the unpack Job complete: %v", err)
	}
}
