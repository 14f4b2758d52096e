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
	"debug/buildinfo"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// startImageManager starts the operator image's manager in its own namespace with
// GODEBUG as given, waits for its readiness probe and for the metrics server.
func startImageManager(t *testing.T, k8s client.Client, rootfs, user string, entrypoint, imageEnv []string, godebug string) (ns, metrics string, manager *container) {
	t.Helper()
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "fips-"}}
	if err := k8s.Create(context.Background(), nsObj); err != nil {
		t.Fatal(err)
	}
	probe, metrics := simtest.FreeAddr(t), simtest.FreeAddr(t)
	// A 1 s poll interval only shortens the wait for the emulator's pending
	// instance to run; no reaction to an event is measured here.
	manager = startContainer(t, "manager-"+godebug, rootfs, user,
		append(entrypoint, "--health-probe-bind-address="+probe, "--metrics-bind-address="+metrics,
			"--watch-namespaces="+nsObj.Name, "--poll-interval=1s"),
		append(append(imageEnv, "KUBECONFIG="+kubeconfigPath, "GODEBUG="+godebug), env.AWSEnv()...))
	eventually(t, 60*time.Second, func() string {
		select {
		case <-manager.done:
			t.Fatalf("the manager with GODEBUG=%s exited: %v\n%s", godebug, manager.err, tail(manager.out.String(), 4000))
		default:
		}
		resp, err := http.Get("http://" + probe + "/readyz")
		if err != nil {
			return err.Error()
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Sprintf("readyz %d", resp.StatusCode)
		}
		if err := simtest.TLSHandshake(metrics, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); err != nil {
			return "metrics: " + err.Error()
		}
		return ""
	})
	return nsObj.Name, metrics, manager
}

// The operator image's manager is built with the Go Cryptographic Module the Makefile
// names (GOFIPS140) and runs with fips140=on by default. Run with GODEBUG=fips140=only,
// where any algorithm outside the module's approved set fails, it still does every
// Kubernetes call (TLS to the API server, watches, status, events) and every AWS call
// of a launch and a termination (STS and EC2, SigV4 signing). What FIPS mode refuses
// is visible from outside: its metrics server serves a TLS 1.2 client offering an
// approved suite and refuses one offering only ChaCha20-Poly1305, which the same image
// serves with fips140=off.
func TestOperatorImageRunsInFIPSOnlyModeWithTheValidatedModule(t *testing.T) {
	img, cf := hostImage(t, "operator")
	rootfs := unpack(t, img)
	info, err := buildinfo.ReadFile(filepath.Join(rootfs, cf.Config.Entrypoint[0]))
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if want := makeVar(t, "GOFIPS140"); settings["GOFIPS140"] != want {
		t.Errorf("the manager is built with GOFIPS140=%q, want the Makefile's %q", settings["GOFIPS140"], want)
	}
	if !strings.Contains(settings["DefaultGODEBUG"], "fips140=on") {
		t.Errorf("the manager's default GODEBUG is %q; want fips140=on", settings["DefaultGODEBUG"])
	}

	k8s, err := client.New(env.Kube.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := os.ReadFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	writeInto(t, rootfs, kubeconfigPath, kubeconfig)

	ns, metrics, manager := startImageManager(t, k8s, rootfs, cf.Config.User, cf.Config.Entrypoint, cf.Config.Env, "fips140=only")
	waitObjectReady(t, k8s, ns, "fips-only", func(c *metav1.Condition) string {
		if c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Sprintf("not Ready: %+v", c)
		}
		return ""
	}, manager)
	obj := &computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fips-only"}}
	if err := k8s.Delete(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, func() string {
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("the object is not gone (its instance terminated): %v", err)
		}
		return ""
	})
	if err := simtest.TLSHandshake(metrics, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256); err == nil {
		t.Error("fips140=only: the metrics server negotiated ChaCha20-Poly1305, which FIPS 140-3 does not approve")
	}
	if log := manager.out.String(); strings.Contains(log, "fips140") || strings.Contains(log, "panic") {
		t.Errorf("the manager's log mentions FIPS or a panic:\n%s", tail(log, 4000))
	}
	manager.stop()

	_, metrics, _ = startImageManager(t, k8s, rootfs, cf.Config.User, cf.Config.Entrypoint, cf.Config.Env, "fips140=off")
	if err := simtest.TLSHandshake(metrics, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256); err != nil {
		t.Errorf("fips140=off: the metrics server refused ChaCha20-Poly1305 (%v), so the check above proves nothing", err)
	}
}
