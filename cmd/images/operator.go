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

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// nonRootID is the UID and GID the images run as: distroless's "nonroot", which
// restricted pod security accepts because it is numeric and not 0.
const nonRootID = 65532

// The accounts of the images. Only nonroot runs anything; root and nobody exist
// because tools and libraries expect to find them.
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group = "root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n"
	// nsswitch tells Go's resolver to read /etc/hosts (which the kubelet manages)
	// before DNS, as glibc does by default.
	nsswitch = "hosts: files dns\n"
)

// baseLayer is the filesystem every runnable image shares: accounts, the CA bundle at
// the path Go reads by default, the license, a writable /tmp and nonroot's home. It is
// the same bytes in every image and platform, so registries store it once.
func (s *settings) baseLayer() (images.LayerSpec, error) {
	license, err := os.ReadFile(filepath.Join(s.root, "LICENSE"))
	if err != nil {
		return images.LayerSpec{}, fmt.Errorf("the images ship the project's license: %w", err)
	}
	return images.LayerSpec{
		CreatedBy: "ec2-operator images: accounts, CA certificates, license, /tmp",
		Files: []images.File{
			{Path: "/etc/passwd", Mode: 0o644, Data: []byte(passwd)},
			{Path: "/etc/group", Mode: 0o644, Data: []byte(group)},
			{Path: "/etc/nsswitch.conf", Mode: 0o644, Data: []byte(nsswitch)},
			{Path: images.CACertificatesPath, Mode: 0o644, Data: images.CACertificates()},
			{Path: "/licenses/LICENSE", Mode: 0o644, Data: license},
			{Path: "/tmp", Dir: true, Mode: 0o1777},
			{Path: "/root", Dir: true, Mode: 0o700},
			{Path: "/home/nonroot", Dir: true, Mode: 0o700, UID: nonRootID, GID: nonRootID},
		},
	}, nil
}

// labels are the labels of a runnable image: what OpenShift's and Red Hat's
// certification tooling reads (name, vendor, version, release, summary, description,
// maintainer, io.k8s.*, io.openshift.tags) and the OCI annotations' keys.
func (s *settings) labels(name, displayName, summary string) map[string]string {
	return map[string]string{
		"name":                              s.ref(name),
		"vendor":                            "ec2-operator project",
		"version":                           "v" + s.version,
		"release":                           s.release,
		"summary":                           summary,
		"description":                       summary + " ec2-operator manages AWS EC2 instances as Kubernetes resources.",
		"maintainer":                        "ec2-operator maintainers <maintainers@ec2-operator.dev>",
		"io.k8s.display-name":               displayName,
		"io.k8s.description":                summary,
		"io.openshift.tags":                 "aws,ec2,operator",
		"org.opencontainers.image.title":    name,
		"org.opencontainers.image.source":   "https://github.com/ec2-operator/ec2-operator",
		"org.opencontainers.image.revision": s.revision,
		"org.opencontainers.image.version":  "v" + s.version,
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.created":  s.created.Format(time.RFC3339),
		"org.opencontainers.image.vendor":   "ec2-operator project",
	}
}

// operatorSpec is the manager: /manager, run as nonroot, nothing else to run.
func (s *settings) operatorSpec(ctx context.Context, p images.Platform) (images.Spec, error) {
	base, err := s.baseLayer()
	if err != nil {
		return images.Spec{}, err
	}
	manager, err := s.buildOwn(ctx, "./cmd", p)
	if err != nil {
		return images.Spec{}, err
	}
	return images.Spec{
		Created: s.created,
		Layers: []images.LayerSpec{base, {
			CreatedBy: "ec2-operator images: go build ./cmd (the manager)",
			Files:     []images.File{{Path: "/manager", Mode: 0o755, Data: manager}},
		}},
		Entrypoint: []string{"/manager"},
		User:       fmt.Sprintf("%d:%d", nonRootID, nonRootID),
		WorkingDir: "/",
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin"},
		Labels: s.labels(operatorImage, "EC2 Operator",
			"The ec2-operator manager: reconciles EC2Instance resources with Amazon EC2."),
	}, nil
}

// scorecardBinary is the custom scorecard test's command, on PATH in its image.
const scorecardBinary = "/usr/local/bin/ec2-operator-scorecard"

// scorecardSpec is the custom scorecard test (cmd/scorecard), which operator-sdk
// scorecard runs in a pod with the bundle at /bundle.
func (s *settings) scorecardSpec(ctx context.Context, p images.Platform) (images.Spec, error) {
	base, err := s.baseLayer()
	if err != nil {
		return images.Spec{}, err
	}
	bin, err := s.buildOwn(ctx, "./cmd/scorecard", p)
	if err != nil {
		return images.Spec{}, err
	}
	return images.Spec{
		Created: s.created,
		Layers: []images.LayerSpec{base, {
			CreatedBy: "ec2-operator images: go build ./cmd/scorecard",
			Files:     []images.File{{Path: scorecardBinary, Mode: 0o755, Data: bin}},
		}},
		Entrypoint: []string{scorecardBinary},
		User:       fmt.Sprintf("%d:%d", nonRootID, nonRootID),
		WorkingDir: "/",
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin"},
		Labels: s.labels(scorecardImage, "EC2 Operator scorecard tests",
			"Custom operator-sdk scorecard tests of ec2-operator: an example EC2Instance becomes Ready."),
	}, nil
}
