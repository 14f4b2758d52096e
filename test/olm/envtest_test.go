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
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ec2-operator/ec2-operator/internal/devtools"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// prometheusOperatorModule is the prometheus-operator release whose CRDs the
// ServiceMonitor and PrometheusRule must satisfy (the CRD YAMLs ship only in the main
// module; OpenShift 4.20 runs prometheus-operator 0.85).
const prometheusOperatorModule = "github.com/prometheus-operator/prometheus-operator@v0.85.0"

// consoleCRDs are the OpenShift console's CRDs for the bundle's ConsoleYAMLSamples and
// ConsoleQuickStart, from openshift/api at the Makefile's OPENSHIFT_API_VERSION: the
// schemas the console's API server enforces.
var consoleCRDs = []string{"00_consoleyamlsamples.crd.yaml", "00_consolequickstarts.crd.yaml"}

var (
	envOnce sync.Once
	env     *testenv.Environment
	envErr  error
)

// apiServer starts one envtest control plane for the package, with the project's CRDs,
// prometheus-operator's ServiceMonitor and PrometheusRule CRDs and the console's
// ConsoleYAMLSample and ConsoleQuickStart CRDs.
func apiServer(t *testing.T) *rest.Config {
	t.Helper()
	consoleModule := "github.com/openshift/api@" + makeVar(t, "OPENSHIFT_API_VERSION")
	envOnce.Do(func() {
		var promDir, consoleDir string
		if promDir, envErr = devtools.ModuleDir(prometheusOperatorModule); envErr != nil {
			return
		}
		if consoleDir, envErr = devtools.ModuleDir(consoleModule); envErr != nil {
			return
		}
		env, envErr = testenv.Start()
		if envErr != nil {
			return
		}
		paths := []string{
			filepath.Join(promDir, "example", "prometheus-operator-crd", "monitoring.coreos.com_servicemonitors.yaml"),
			filepath.Join(promDir, "example", "prometheus-operator-crd", "monitoring.coreos.com_prometheusrules.yaml"),
		}
		for _, f := range consoleCRDs {
			paths = append(paths, filepath.Join(consoleDir, "console", "v1", "zz_generated.crd-manifests", f))
		}
		_, envErr = envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true})
	})
	if envErr != nil {
		t.Fatalf("starting the test API server: %v", envErr)
	}
	return env.Config
}

func stopEnv() {
	if env != nil {
		_ = env.Stop()
	}
}
