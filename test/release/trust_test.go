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
	"crypto/tls"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/pki"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// TestOperatorImageTrustsTheClusterCABundleWhereTheDeploymentMountsIt puts an EC2
// endpoint behind TLS with a certificate from a CA of its own, as a TLS-inspecting
// proxy does, and runs the manager from the operator image against it twice: without
// the CA it cannot reach EC2; with the CA where the bundle's Deployment mounts the
// cluster's trusted CA bundle (the ConfigMap OpenShift injects), an EC2Instance
// becomes Ready.
func TestOperatorImageTrustsTheClusterCABundleWhereTheDeploymentMountsIt(t *testing.T) {
	mountPath := trustedCAMountPath(t)
	caPEM, serverCert := testCA(t)
	srv := httptest.NewUnstartedServer(ec2sim.New(ec2sim.Config{}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{serverCert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	img, cf := hostImage(t, "operator")
	endpoint := []string{"AWS_ENDPOINT_URL_EC2=" + srv.URL}
	runImageManager(t, img, cf, imageRun{name: "manager-without-ca", env: endpoint}, func(c *metav1.Condition) string {
		if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "certificate") {
			return fmt.Sprintf("Ready %+v, want False with a certificate error", c)
		}
		return ""
	})
	withCA := imageRun{name: "manager-with-ca", env: endpoint, files: map[string][]byte{filepath.Join(mountPath, "ca-bundle.crt"): caPEM}}
	runImageManager(t, img, cf, withCA, func(c *metav1.Condition) string {
		if c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Sprintf("Ready %+v, want True", c)
		}
		return ""
	})
}

// imageRun is one run of the manager from the operator image.
type imageRun struct {
	name string
	// files are added to a fresh copy of the image's filesystem, as mounts would be.
	files map[string][]byte
	// env is added to the image's environment, after the test's AWS settings.
	env []string
	// kubeconfig replaces the test control plane's kubeconfig.
	kubeconfig []byte
	// namespace is where the manager watches and the EC2Instance is created; empty
	// makes a new one.
	namespace string
	// netns is the network namespace the manager runs in (a path); empty: the test's.
	netns string
}

// runImageManager starts the manager from the operator image as r says, creates an
// EC2Instance in a namespace of its own and waits until its Ready condition passes
// check, then stops the manager.
func runImageManager(t *testing.T, img v1.Image, cf *v1.ConfigFile, r imageRun, check func(*metav1.Condition) string) {
	t.Helper()
	k8s, err := client.New(env.Kube.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := r.kubeconfig
	if kubeconfig == nil {
		if kubeconfig, err = os.ReadFile(env.Kubeconfig); err != nil {
			t.Fatal(err)
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.namespace}}
	if r.namespace == "" {
		ns.GenerateName = "image-run-"
		if err := k8s.Create(context.Background(), ns); err != nil {
			t.Fatal(err)
		}
	}
	rootfs := unpack(t, img)
	writeInto(t, rootfs, kubeconfigPath, kubeconfig)
	for p, data := range r.files {
		writeInto(t, rootfs, p, data)
	}
	// The control plane's STS emulator and credentials (the manager reads its own
	// account before it launches); the EC2 endpoint is the run's (r.env), or EC2's real
	// name when it gives none (the proxy test).
	environ := append(cf.Config.Env, "KUBECONFIG="+kubeconfigPath)
	for _, kv := range env.AWSEnv() {
		if !strings.HasPrefix(kv, "AWS_ENDPOINT_URL_EC2=") {
			environ = append(environ, kv)
		}
	}
	manager := startContainerIn(t, r.netns, r.name, rootfs, cf.Config.User,
		append(cf.Config.Entrypoint, "--health-probe-bind-address="+simtest.FreeAddr(t), "--metrics-bind-address=0",
			"--watch-namespaces="+ns.Name, "--resync-period=5s", "--poll-interval=1s"),
		append(environ, r.env...))
	defer manager.stop()
	waitObjectReady(t, k8s, ns.Name, "from-image", check, manager)
}

// waitObjectReady creates an EC2Instance that the emulator can launch and waits until
// its Ready condition passes check, failing at once if the manager (when given) exits.
func waitObjectReady(t *testing.T, k8s client.Client, namespace, name string, check func(*metav1.Condition) string, manager *container) {
	t.Helper()
	obj := &computev1alpha1.EC2Instance{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: computev1alpha1.EC2InstanceSpec{
			ImageID:      ec2sim.DefaultImageID,
			InstanceType: "t3.micro",
			SubnetID:     ec2sim.DefaultSubnetIDs[0],
		},
	}
	if err := k8s.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, func() string {
		if manager != nil {
			select {
			case <-manager.done:
				t.Fatalf("the manager exited: %v", manager.err)
			default:
			}
		}
		got := &computev1alpha1.EC2Instance{}
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), got); err != nil {
			return err.Error()
		}
		return check(meta.FindStatusCondition(got.Status.Conditions, computev1alpha1.ConditionReady))
	})
}

// trustedCAMountPath is where the bundle's Deployment mounts the trusted CA bundle
// ConfigMap, checked to be the ConfigMap OpenShift injects into.
func trustedCAMountPath(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(manifestsRoot, "bundle/manifests/ec2-operator.clusterserviceversion.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var csv operatorsv1alpha1.ClusterServiceVersion
	if err := yaml.Unmarshal(data, &csv); err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	cmData, err := os.ReadFile(filepath.Join(manifestsRoot, "bundle/manifests/ec2-operator-trusted-ca-bundle_v1_configmap.yaml"))
	if err != nil {
		t.Fatalf("the bundle has no trusted CA bundle ConfigMap: %v", err)
	}
	if err := yaml.Unmarshal(cmData, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Labels["config.openshift.io/inject-trusted-cabundle"] != "true" {
		t.Errorf("ConfigMap %s is not labelled for OpenShift's CA injection: %v", cm.Name, cm.Labels)
	}
	pod := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec
	volume := ""
	for _, v := range pod.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == cm.Name {
			if v.ConfigMap.Optional == nil || !*v.ConfigMap.Optional {
				t.Errorf("volume %s must be optional: the ConfigMap is empty off OpenShift", v.Name)
			}
			volume = v.Name
		}
	}
	if volume == "" {
		t.Fatalf("the Deployment mounts no volume of ConfigMap %s", cm.Name)
	}
	for _, c := range pod.Containers {
		for _, m := range c.VolumeMounts {
			if m.Name == volume {
				return m.MountPath
			}
		}
	}
	t.Fatalf("no container mounts volume %s", volume)
	return ""
}

// testCA returns a new CA's certificate in PEM and a server certificate for
// 127.0.0.1 and dnsNames that it signed.
func testCA(t *testing.T, dnsNames ...string) ([]byte, tls.Certificate) {
	t.Helper()
	ca, err := pki.NewAuthority("TLS-inspecting proxy CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(pki.Request{CommonName: "ec2.us-east-1.amazonaws.com", DNSNames: dnsNames,
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, Server: true, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return ca.CertPEM, leaf.TLS()
}
