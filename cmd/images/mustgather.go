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
	"path"
	"sort"

	"github.com/ec2-operator/ec2-operator/internal/images"
	"github.com/ec2-operator/ec2-operator/internal/mustgather/toolbox"
)

// gatherBinary is what `oc adm must-gather` runs when given no command.
const gatherBinary = "/usr/bin/gather"

// mustGatherSpec is the must-gather image: cmd/must-gather at /usr/bin/gather, and
// the same binary under the names of the shell and commands oc runs in the image
// (/bin/bash, sleep, tar, ...), which it dispatches on. The image has no other
// program, so a support engineer's `oc rsh` finds only what gathering needs.
func (s *settings) mustGatherSpec(ctx context.Context, p images.Platform) (images.Spec, error) {
	base, err := s.baseLayer()
	if err != nil {
		return images.Spec{}, err
	}
	bin, err := s.buildOwn(ctx, "./cmd/must-gather", p)
	if err != nil {
		return images.Spec{}, err
	}
	files := []images.File{
		{Path: gatherBinary, Mode: 0o755, Data: bin},
		// oc creates the archive in an emptyDir mounted here; the directory lets the
		// image also gather when run by itself (podman run), as its user.
		{Path: "/must-gather", Dir: true, Mode: 0o755, UID: nonRootID, GID: nonRootID},
	}
	names := toolbox.Names()
	sort.Strings(names)
	for _, name := range names {
		dir := "/usr/bin"
		if name == "bash" || name == "sh" {
			// oc runs /bin/bash by that path.
			dir = "/bin"
		}
		files = append(files, images.File{Path: path.Join(dir, name), Link: gatherBinary})
	}
	return images.Spec{
		Created: s.created,
		Layers: []images.LayerSpec{base, {
			CreatedBy: "ec2-operator images: go build ./cmd/must-gather, linked as the shell and tools oc runs",
			Files:     files,
		}},
		Entrypoint: []string{gatherBinary},
		User:       fmt.Sprintf("%d:%d", nonRootID, nonRootID),
		WorkingDir: "/",
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin"},
		Labels: s.labels(mustGatherImage, "EC2 Operator must-gather",
			"Collects ec2-operator's objects, installation and logs for a support case, without secrets: oc adm must-gather --image=<this image>."),
	}, nil
}
