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

// OLM v1's two managers, built by hack/build-olmv1.sh from
// github.com/operator-framework/operator-controller at olmv1Version (operator-controller
// with cmd/devcluster/olmv1/*.patch). Their manifests are cmd/devcluster/olmv1/olmv1.yaml,
// which names these refs. The sources are the symlinks the build script points at the
// binaries it built.
const (
	olmv1Version            = "v1.2.0"
	olmv1BinDir             = "bin/cluster/olmv1"
	operatorControllerImage = "localhost/cluster/operator-controller:" + olmv1Version
	catalogdImage           = "localhost/cluster/catalogd:" + olmv1Version
)

func init() {
	registerImages(
		componentImage{
			Ref: operatorControllerImage,
			Files: []componentFile{{
				Path: "/operator-controller", Source: olmv1BinDir + "/operator-controller", Mode: 0o755,
			}},
			Entrypoint: []string{"/operator-controller"},
		},
		componentImage{
			Ref: catalogdImage,
			Files: []componentFile{{
				Path: "/catalogd", Source: olmv1BinDir + "/catalogd", Mode: 0o755,
			}},
			Entrypoint: []string{"/catalogd"},
		},
	)
}
