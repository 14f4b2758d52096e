//go:build cluster

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

package cluster

import (
	"path/filepath"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/devtools"
)

// consoleCRDFiles are the OpenShift console's CRDs for the bundle's ConsoleYAMLSamples
// and ConsoleQuickStart, from openshift/api at the Makefile's OPENSHIFT_API_VERSION.
// Without them neither OLM v0 nor v1 installs the bundle: a kind the API server does
// not serve fails the InstallPlan and the ClusterExtension.
var consoleCRDFiles = []string{"00_consoleyamlsamples.crd.yaml", "00_consolequickstarts.crd.yaml"}

// consoleObjects are the bundle's cluster-scoped console objects, by resource: what an
// OpenShift user sees under "Import YAML" samples and "Quick Starts" once installed.
var consoleObjects = map[string][]string{
	"consoleyamlsamples.console.openshift.io": {
		"ec2-operator-basic", "ec2-operator-spot", "ec2-operator-hibernating",
		"ec2-operator-volume-and-eip", "ec2-operator-other-account", "ec2-operator-awsaccount", "ec2-operator-instance-set",
	},
	"consolequickstarts.console.openshift.io": {"ec2-operator-first-instance"},
}

// installConsoleCRDs applies the console's ConsoleYAMLSample and ConsoleQuickStart CRDs,
// as an OpenShift cluster serves them.
func installConsoleCRDs(t *testing.T, c *Cluster) {
	t.Helper()
	version, err := devtools.MakeVar(c.Root, "OPENSHIFT_API_VERSION")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(moduleDir(t, "github.com/openshift/api", version), "console", "v1", "zz_generated.crd-manifests")
	for _, f := range consoleCRDFiles {
		c.Apply(t, filepath.Join(dir, f))
	}
	for resource := range consoleObjects {
		c.Kubectl(t, "wait", "--for=condition=Established", "--timeout=60s", "crd/"+resource)
	}
}

// checkConsoleObjects proves the install created every console sample and the quick
// start (kubectl get fails on a missing one).
func (c *Cluster) checkConsoleObjects(t testing.TB) {
	t.Helper()
	for resource, names := range consoleObjects {
		c.Kubectl(t, append([]string{"get", resource, "-o", "name"}, names...)...)
	}
}

// deleteConsoleObjects removes the console objects an OLM v0 install leaves behind, as
// docs/olmv1.md tells a user moving to OLM v1 (which refuses to take over objects it did
// not create).
func (c *Cluster) deleteConsoleObjects(t testing.TB) {
	t.Helper()
	for resource, names := range consoleObjects {
		c.Kubectl(t, append([]string{"delete", resource, "--ignore-not-found", "--wait=true", "--timeout=60s"}, names...)...)
	}
}
