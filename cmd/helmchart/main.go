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

// Command helmchart writes the Helm chart in dist/chart from kustomize's output, so
// that the chart has no source of truth of its own: the objects are kustomize's (the
// CRDs, RBAC and Deployment of config/default, the image pinned as the bundle pins
// it), and the chart only puts its values where they belong (see placeholders.go).
// make build-installer runs it after writing dist/install.yaml:
//
//	helmchart --install dist/install.yaml --csv config/manifests/bases/ec2-operator.clusterserviceversion.yaml \
//	    --version 0.1.0 --out dist/chart
//
// test/chart proves that the chart with its default values renders what kustomize
// does, that `helm lint --strict` is clean and that the values do what they say.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	var opts options
	flag.StringVar(&opts.install, "install", "dist/install.yaml", "kustomize's output to template (make build-installer's)")
	flag.StringVar(&opts.csv, "csv", "config/manifests/bases/ec2-operator.clusterserviceversion.yaml",
		"the base CSV, whose minKubeVersion, description and maintainers the chart repeats")
	flag.StringVar(&opts.version, "version", "", "the release's version (chart version and appVersion)")
	flag.StringVar(&opts.out, "out", "dist/chart", "the chart directory to write (replaced)")
	flag.Parse()
	if err := opts.run(); err != nil {
		// One line that names the problem, as make shows it.
		fmt.Fprintln(os.Stderr, "helmchart:", err)
		os.Exit(1)
	}
}
