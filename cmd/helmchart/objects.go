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

// object is one document of kustomize's output.
type object map[string]any

func (o object) kind() string { s, _ := o["kind"].(string); return s }

func (o object) metadata() map[string]any {
	m, _ := o["metadata"].(map[string]any)
	return m
}

func (o object) name() string { s, _ := o.metadata()["name"].(string); return s }

// Names of the objects the chart templates beyond the namespace; kustomize's
// namePrefix (config/default) is part of them.
const (
	deploymentName          = "ec2-operator-controller-manager"
	serviceAccountName      = "ec2-operator-controller-manager"
	allNamespacesBinding    = "ec2-operator-manager-all-namespaces-rolebinding"
	managedByLabel          = "app.kubernetes.io/managed-by"
	managerContainer        = "manager"
	watchNamespaceVariable  = "WATCH_NAMESPACE"
	regionVariable          = "AWS_REGION"
	namespaceInclude        = `{{ include "ec2-operator.namespace" $ }}`
	resourcePolicyKeepBlock = `{{- if $.Values.crds.keep }}`
)

// template is one file of the chart's templates/ directory.
type template struct {
	file string
	text string
}

// templater turns kustomize's objects into the chart's templates. It remembers
// what it took from them for values.yaml (defaultsFrom).
type templater struct {
	namespace string
	defaults  defaults
	seen      map[string]bool
}

// templateFor returns the template of one object.
func (t *templater) templateFor(obj object) (template, error) {
	kind, name := obj.kind(), obj.name()
	file := fmt.Sprintf("%s-%s.yaml", strings.ToLower(kind), strings.TrimPrefix(name, "ec2-operator-"))
	p := newPlaceholders()
	t.replaceNamespace(obj, p)
	t.replaceManagedBy(obj, p)
	var err error
	var wrap func(string) string
	switch {
	case kind == "Namespace":
		file = "namespace.yaml"
		wrap = wrapIf("$.Values.createNamespace")
	case kind == "CustomResourceDefinition":
		file = "crd-" + strings.SplitN(name, ".", 2)[0] + ".yaml"
		keepResourcePolicy(obj, p)
		wrap = wrapIf("$.Values.crds.install")
	case kind == "Deployment" && name == deploymentName:
		err = t.templateDeployment(obj, p)
	case kind == "ServiceAccount" && name == serviceAccountName:
		obj.metadata()[p.block(serviceAccountAnnotations)] = ""
	case kind == "ClusterRoleBinding" && name == allNamespacesBinding:
		wrap, err = watchedNamespacesBindings(obj, p)
	}
	if err != nil {
		return template{}, fmt.Errorf("%s %s: %w", kind, name, err)
	}
	t.seen[kind+"/"+name] = true
	text, err := p.render(obj)
	if err != nil {
		return template{}, fmt.Errorf("%s %s: %w", kind, name, err)
	}
	if wrap != nil {
		text = wrap(text)
	}
	return template{file: file, text: text}, nil
}

// replaceNamespace puts the chart's namespace wherever kustomize wrote its own: the
// Namespace's name, metadata.namespace and the namespace of binding subjects.
func (t *templater) replaceNamespace(v any, p *placeholders) {
	switch v := v.(type) {
	case object:
		t.replaceNamespace(map[string]any(v), p)
	case map[string]any:
		for key, value := range v {
			if s, ok := value.(string); ok && s == t.namespace && (key == "namespace" || key == "name") {
				v[key] = p.value(namespaceInclude)
				continue
			}
			t.replaceNamespace(value, p)
		}
	case []any:
		for _, item := range v {
			t.replaceNamespace(item, p)
		}
	}
}

// replaceManagedBy says Helm, not kustomize, manages the objects.
func (t *templater) replaceManagedBy(obj object, p *placeholders) {
	for _, labels := range labelMaps(map[string]any(obj)) {
		if labels[managedByLabel] == "kustomize" {
			labels[managedByLabel] = p.value("{{ $.Release.Service }}")
		}
	}
}

// labelMaps returns every "labels" map in v (the object's and its pod template's).
func labelMaps(v any) []map[string]any {
	var found []map[string]any
	switch v := v.(type) {
	case map[string]any:
		for key, value := range v {
			if m, ok := value.(map[string]any); ok && key == "labels" {
				found = append(found, m)
				continue
			}
			found = append(found, labelMaps(value)...)
		}
	case []any:
		for _, item := range v {
			found = append(found, labelMaps(item)...)
		}
	}
	return found
}

// keepResourcePolicy makes `helm uninstall` leave the CRDs (crds.keep, the default):
// deleting a CRD deletes every EC2Instance while no operator is left to terminate
// their instances, which would leak them and leave their finalizers stuck.
func keepResourcePolicy(obj object, p *placeholders) {
	md := obj.metadata()
	annotations, _ := md["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
		md["annotations"] = annotations
	}
	annotations[p.block(func(indent string) string {
		return lines(indent, resourcePolicyKeepBlock, "helm.sh/resource-policy: keep", "{{- end }}")
	})] = ""
}

// serviceAccountAnnotations renders the service account's annotations: the IRSA role
// and serviceAccount.annotations.
func serviceAccountAnnotations(indent string) string {
	return lines(indent,
		`{{- with (include "ec2-operator.serviceAccountAnnotations" $ | trim) }}`,
		`annotations:`,
		`  {{- . | nindent `+fmt.Sprint(len(indent)+2)+` }}`,
		`{{- end }}`)
}

// wrapIf renders text only when condition holds.
func wrapIf(condition string) func(string) string {
	return func(text string) string {
		return "{{- if " + condition + " }}\n" + text + "{{- end }}\n"
	}
}

// watchedNamespacesBindings keeps the binding of the manager's namespaced rules in
// every namespace when watchNamespaces is empty, and otherwise replaces it by one
// RoleBinding of the same ClusterRole in each watched namespace: a manager that
// watches some namespaces gets no rights in the others.
func watchedNamespacesBindings(obj object, p *placeholders) (func(string) string, error) {
	roleRef, _ := obj["roleRef"].(map[string]any)
	if roleRef == nil || obj["subjects"] == nil {
		return nil, fmt.Errorf("no roleRef or subjects")
	}
	// The RoleBinding shares the ClusterRoleBinding's labels and subjects, whose
	// placeholders (namespace, managed-by) p already holds.
	binding := object{
		"apiVersion": obj["apiVersion"],
		"kind":       "RoleBinding",
		"metadata": map[string]any{
			"name":      obj.name(),
			"namespace": p.value("{{ $watched }}"),
			"labels":    obj.metadata()["labels"],
		},
		"roleRef":  roleRef,
		"subjects": obj["subjects"],
	}
	roleBinding, err := p.render(binding)
	if err != nil {
		return nil, err
	}
	return func(clusterBinding string) string {
		return "{{- if not $.Values.watchNamespaces }}\n" + clusterBinding +
			"{{- else }}\n{{- range $watched := $.Values.watchNamespaces }}\n---\n" + roleBinding +
			"{{- end }}\n{{- end }}\n"
	}, nil
}
