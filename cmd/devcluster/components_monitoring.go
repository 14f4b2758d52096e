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

package main

// The monitoring stack that stands in for OpenShift's user-workload monitoring
// (manifests in cmd/devcluster/monitoring), built by hack/build-monitoring.sh. The tags
// must match the manifests' image references and the versions that script builds.
const (
	monitoringBinDir = "bin/cluster/monitoring"
	// Prometheus 3.16.0 is the Go module github.com/prometheus/prometheus v0.316.0.
	prometheusImage         = "localhost/cluster/prometheus:v3.16.0"
	prometheusOperatorImage = "localhost/cluster/prometheus-operator:v0.85.0"
	configReloaderImage     = "localhost/cluster/prometheus-config-reloader:v0.85.0"
	// The service CA stand-in is built from cmd/devcluster/serviceca in this repository;
	// a changed binary is imported again under the same name (its stamp changes).
	serviceCAImage = "localhost/cluster/service-ca:v0.1.0"
)

func init() {
	registerImages(
		componentImage{
			// The upstream image's layout: /bin/prometheus, run as nobody. The operator
			// passes every flag; the web UI is not built in (API only).
			Ref:        prometheusImage,
			Files:      []componentFile{{Path: "/bin/prometheus", Source: monitoringBinDir + "/prometheus", Mode: 0o755}},
			Entrypoint: []string{"/bin/prometheus"},
			User:       "65534:65534",
		},
		componentImage{
			Ref:        prometheusOperatorImage,
			Files:      []componentFile{{Path: "/bin/operator", Source: monitoringBinDir + "/prometheus-operator", Mode: 0o755}},
			Entrypoint: []string{"/bin/operator"},
			User:       "65534:65534",
		},
		componentImage{
			// The operator runs this image without a command (init container and
			// sidecar of every Prometheus pod), so the entrypoint must be the reloader.
			Ref:        configReloaderImage,
			Files:      []componentFile{{Path: "/bin/prometheus-config-reloader", Source: monitoringBinDir + "/prometheus-config-reloader", Mode: 0o755}},
			Entrypoint: []string{"/bin/prometheus-config-reloader"},
			User:       "65534:65534",
		},
		componentImage{
			Ref:        serviceCAImage,
			Files:      []componentFile{{Path: "/service-ca", Source: monitoringBinDir + "/service-ca", Mode: 0o755}},
			Entrypoint: []string{"/service-ca"},
		},
	)
}
