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

package mustgather

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/version"
)

// writer lays the archive out as `oc adm inspect` does, so support's tools (omc,
// must-gather viewers) read it: cluster-scoped-resources/<group>/<resource>.yaml and
// namespaces/<namespace>/<group>/<resource>.yaml lists, pods' logs under
// namespaces/<namespace>/pods/<pod>/<container>/<container>/logs/, and a gather.log
// of what was collected and skipped.
type writer struct {
	root string
}

// start creates the directory and records when and by what version it was gathered.
func (w *writer) start() error {
	if err := os.MkdirAll(w.root, 0o755); err != nil {
		return err
	}
	stamp := fmt.Sprintf("ec2-operator must-gather %s\nstarted %s\n", version.Version, time.Now().UTC().Format(time.RFC3339))
	return w.writeFile("version", []byte(stamp))
}

// writeList writes objects as a v1 List.
func (w *writer) writeList(path, apiVersion string, items []any) error {
	data, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		return fmt.Errorf("encoding %s objects: %w", apiVersion, err)
	}
	return w.writeFile(path, data)
}

// writeFile writes one file under the root, creating its directories. Paths are built
// from object names, which Kubernetes keeps free of "/" and "..".
func (w *writer) writeFile(path string, data []byte) error {
	full := filepath.Join(w.root, filepath.FromSlash(path))
	if !strings.HasPrefix(full, filepath.Clean(w.root)+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside the archive", path)
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, data, 0o644)
}

// log appends a line to gather.log as it goes, so that a gather stopped by oc's
// timeout still says what it had done. A line that cannot be written is on the
// gather's standard output too, which oc keeps.
func (w *writer) log(line string) {
	f, err := os.OpenFile(filepath.Join(w.root, "gather.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339), line)
}

// resourcePath is where a resource's list goes; the core group is named "core".
func resourcePath(gvr schema.GroupVersionResource, namespace string) string {
	group := gvr.Group
	if group == "" {
		group = "core"
	}
	if namespace == "" {
		return fmt.Sprintf("cluster-scoped-resources/%s/%s.yaml", group, gvr.Resource)
	}
	return fmt.Sprintf("namespaces/%s/%s/%s.yaml", namespace, group, gvr.Resource)
}

// resourceName is resource.group, as kubectl names it.
func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}
