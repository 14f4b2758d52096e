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

// operator-sdk scorecard's test pods: the built-in tests' image under the exact name
// bundle/tests/scorecard/config.yaml gives it (built from the operator-sdk module by
// make scorecard-test), and the image of the pods' untar step, which runs
// "tar xvzf /scorecard/bundle.tar.gz -C /scorecard-bundle" as the image's arguments
// (busybox as its entrypoint makes that busybox's tar). The custom test's image is a
// release image (make images).
func init() {
	registerImages(
		componentImage{
			Ref:        "quay.io/operator-framework/scorecard-test:v1.42.2",
			Files:      []componentFile{{Path: "/usr/local/bin/scorecard-test", Source: "bin/scorecard-test", Mode: 0o755}},
			Entrypoint: []string{"/usr/local/bin/scorecard-test"},
		},
		componentImage{
			Ref:        scorecardUntarImage,
			Files:      []componentFile{{Path: "/bin/busybox", Source: "/bin/busybox", Mode: 0o755}},
			Entrypoint: []string{"/bin/busybox"},
		},
	)
}

const scorecardUntarImage = "localhost/cluster/busybox:1.35"
