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

// olmBinDir holds OLM v0's static binaries (hack/build-olm-images-binaries.sh).
const olmBinDir = "bin/cluster/olm-v0.40.0"

// OLM v0's images, as upstream ships them: one image with every OLM program under /bin
// (the olm, catalog and packageserver Deployments and the bundle unpack Job's copy
// step use it), and opm, which the unpack Job's extract step runs. OLM pulls images
// named by tag with Always, so the manifests name these by digest (images.json).
func init() {
	var olmFiles []componentFile
	for _, prog := range []string{"olm", "catalog", "package-server", "cpb", "copy-content"} {
		olmFiles = append(olmFiles, componentFile{Path: "/bin/" + prog, Source: olmBinDir + "/" + prog, Mode: 0o755})
	}
	// The bundle unpack Job's first step runs "/bin/cp -Rv /bin/cpb /util/cpb" in this
	// image (upstream's is UBI-based, with coreutils); busybox run as cp is that cp.
	olmFiles = append(olmFiles, componentFile{Path: "/bin/cp", Source: "/bin/busybox", Mode: 0o755})
	registerImages(
		componentImage{Ref: "localhost/cluster/olm:v0.40.0", Files: olmFiles, Entrypoint: []string{"/bin/olm"}},
		componentImage{
			Ref:        "localhost/cluster/opm:v1.61.0",
			Files:      []componentFile{{Path: "/bin/opm", Source: "bin/opm-linux-amd64", Mode: 0o755}},
			Entrypoint: []string{"/bin/opm"},
		},
	)
}
