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
	"fmt"
	"strings"
)

// defaults are the values kustomize's output sets, which values.yaml starts from so
// that the chart's defaults render the same Deployment.
type defaults struct {
	imageRepository string
	imageDigest     string
	imageTag        string
	replicas        any
	region          string
	resources       map[string]any
}

// templateDeployment puts the chart's values into the manager's Deployment.
func (t *templater) templateDeployment(obj object, p *placeholders) error {
	spec, _ := obj["spec"].(map[string]any)
	podTemplate, _ := spec["template"].(map[string]any)
	podSpec, _ := podTemplate["spec"].(map[string]any)
	podMetadata, _ := podTemplate["metadata"].(map[string]any)
	if podSpec == nil || podMetadata == nil {
		return fmt.Errorf("no pod template")
	}
	container, err := findContainer(podSpec, managerContainer)
	if err != nil {
		return err
	}
	t.defaults.replicas = spec["replicas"]
	spec["replicas"] = p.value("{{ $.Values.replicas }}")
	annotations, _ := podMetadata["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
		podMetadata["annotations"] = annotations
	}
	annotations[p.block(func(indent string) string {
		return lines(indent, "{{- with $.Values.podAnnotations }}", fmt.Sprintf("{{- toYaml . | nindent %d }}", len(indent)), "{{- end }}")
	})] = ""
	podSpec[p.block(podSchedulingBlock)] = ""
	if err := t.templateImage(container, p); err != nil {
		return err
	}
	resources, _ := container["resources"].(map[string]any)
	t.defaults.resources = resources
	delete(container, "resources")
	container[p.block(func(indent string) string {
		return lines(indent, "resources:", fmt.Sprintf("  {{- toYaml $.Values.resources | nindent %d }}", len(indent)+2))
	})] = ""
	args, _ := container["args"].([]any)
	container["args"] = append(args, p.block(func(indent string) string {
		return lines(indent, "{{- range $.Values.extraArgs }}", "- {{ . | quote }}", "{{- end }}")
	}))
	return t.templateEnv(container, p)
}

// findContainer returns the container of podSpec called name.
func findContainer(podSpec map[string]any, name string) (map[string]any, error) {
	containers, _ := podSpec["containers"].([]any)
	for _, c := range containers {
		if m, ok := c.(map[string]any); ok && m["name"] == name {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no container %q", name)
}

// templateImage takes the image kustomize pins (repository@sha256:digest) as the
// default of image.repository and image.digest.
func (t *templater) templateImage(container map[string]any, p *placeholders) error {
	image, _ := container["image"].(string)
	if repo, digest, ok := strings.Cut(image, "@"); ok {
		t.defaults.imageRepository, t.defaults.imageDigest = repo, digest
	} else if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		t.defaults.imageRepository, t.defaults.imageTag = image[:i], image[i+1:]
	} else {
		return fmt.Errorf("image %q has neither a digest nor a tag", image)
	}
	container["image"] = p.value(`{{ include "ec2-operator.image" $ }}`)
	container[p.block(func(indent string) string {
		return lines(indent, "{{- with $.Values.image.pullPolicy }}", "imagePullPolicy: {{ . }}", "{{- end }}")
	})] = ""
	return nil
}

// templateEnv makes AWS_REGION follow aws.region, WATCH_NAMESPACE follow
// watchNamespaces when it is set, and adds the variables of the other values.
func (t *templater) templateEnv(container map[string]any, p *placeholders) error {
	env, _ := container["env"].([]any)
	var region, watch bool
	for i, item := range env {
		variable, _ := item.(map[string]any)
		switch variable["name"] {
		case regionVariable:
			t.defaults.region, _ = variable["value"].(string)
			variable["value"] = p.value("{{ $.Values.aws.region | quote }}")
			region = true
		case watchNamespaceVariable:
			fromOLM, err := indentYAML(map[string]any{"valueFrom": variable["valueFrom"]}, "  ")
			if err != nil {
				return err
			}
			env[i] = p.block(func(indent string) string {
				return lines(indent, "- name: "+watchNamespaceVariable, "  {{- if $.Values.watchNamespaces }}",
					`  value: {{ join "," $.Values.watchNamespaces | quote }}`, "  {{- else }}") +
					lines(indent, strings.Split(strings.TrimSuffix(fromOLM, "\n"), "\n")...) +
					lines(indent, "  {{- end }}")
			})
			watch = true
		}
	}
	if !region || !watch {
		return fmt.Errorf("the manager has no %s or %s variable", regionVariable, watchNamespaceVariable)
	}
	container["env"] = append(env, p.block(func(indent string) string {
		return lines(indent, `{{- with (include "ec2-operator.env" $ | trim) }}`, fmt.Sprintf("{{- . | nindent %d }}", len(indent)), "{{- end }}")
	}))
	return nil
}

// podSchedulingBlock renders the pod's optional scheduling and pull settings.
func podSchedulingBlock(indent string) string {
	var out strings.Builder
	for _, field := range []string{"imagePullSecrets", "nodeSelector", "tolerations", "affinity"} {
		out.WriteString(lines(indent, "{{- with $.Values."+field+" }}", field+":",
			fmt.Sprintf("  {{- toYaml . | nindent %d }}", len(indent)+2), "{{- end }}"))
	}
	out.WriteString(lines(indent, "{{- with $.Values.priorityClassName }}", "priorityClassName: {{ . }}", "{{- end }}"))
	return out.String()
}
