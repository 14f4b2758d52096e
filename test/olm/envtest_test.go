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
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// prometheusOperatorModule is the prometheus-operator release whose CRDs the
// ServiceMonitor and PrometheusRule must satisfy (the CRD YAMLs ship only in the main
// module; OpenShift 4.20 runs prometheus-operator 0.85).
const prometheusOperatorModule = "github.com/prometheus-operator/prometheus-operator@v0.85.0"

var (
	envOnce sync.Once
	env     *testenv.Environment
	envErr  error
)

// apiServer starts one envtest control plane for the package, with the project's CRDs
// and prometheus-operator's ServiceMonitor and PrometheusRule CRDs.
func apiServer(t *testing.T) *rest.Config {
	t.Helper()
	envOnce.Do(func() {
		var crdDir string
		crdDir, envErr = prometheusOperatorCRDs()
		if envErr != nil {
			return
		}
		env, envErr = testenv.Start()
		if envErr != nil {
			return
		}
		_, envErr = envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{
			Paths: []string{
				filepath.Join(crdDir, "monitoring.coreos.com_servicemonitors.yaml"),
				filepath.Join(crdDir, "monitoring.coreos.com_prometheusrules.yaml"),
			},
			ErrorIfPathMissing: true,
		})
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

// prometheusOperatorCRDs downloads prometheus-operator's module through the Go module
// proxy (a no-op when it is in the module cache) and returns its CRD directory.
func prometheusOperatorCRDs() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", prometheusOperatorModule)
	// Outside this module, so go.mod and go.sum are left alone.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", &downloadError{err: err, stderr: stderr.String() + stdout.String()}
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(stdout.Bytes(), &mod); err != nil {
		return "", err
	}
	if mod.Error != "" {
		return "", &downloadError{stderr: mod.Error}
	}
	return filepath.Join(mod.Dir, "example", "prometheus-operator-crd"), nil
}

type downloadError struct {
	err    error
	stderr string
}

func (e *downloadError) Error() string {
	return "go mod download " + prometheusOperatorModule + ": " + e.stderr
}
