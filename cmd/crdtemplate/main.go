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

// Command crdtemplate finishes the CRDs controller-gen writes, for the kinds that
// embed another kind's spec as a template (EC2InstanceSet's spec.template.spec is an
// EC2InstanceSpec). controller-gen copies every validation rule of the embedded type,
// including the transition rules that compare a spec with its previous version
// ("imageId is immutable"): in a template those would forbid exactly the changes a
// template exists for (a new image rolls the set). The rules that name oldSelf are
// removed under each template; every other rule stays, so a template is checked as
// the kind's own spec is.
//
// usage: crdtemplate CRD-FILE JSON-PATH...  (make manifests runs it)
//
//	crdtemplate config/crd/bases/compute.ec2-operator.dev_ec2instancesets.yaml spec.template.spec
package main

import (
	"fmt"
	"os"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: crdtemplate CRD-FILE JSON-PATH...")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "crdtemplate:", err)
		os.Exit(1)
	}
}

// run rewrites the CRD file with the transition rules under each path removed, in the
// form controller-gen writes ("---" first, then the object's YAML).
func run(file string, paths []string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	for i := range crd.Spec.Versions {
		schema := crd.Spec.Versions[i].Schema
		if schema == nil || schema.OpenAPIV3Schema == nil {
			return fmt.Errorf("%s: version %s has no schema", file, crd.Spec.Versions[i].Name)
		}
		for _, path := range paths {
			if err := stripUnder(schema.OpenAPIV3Schema, strings.Split(path, ".")); err != nil {
				return fmt.Errorf("%s: %s: %w", file, path, err)
			}
		}
	}
	out, err := yaml.Marshal(&crd)
	if err != nil {
		return err
	}
	// controller-gen leaves out the status an empty object marshals to.
	text := strings.Replace(string(out), "status:\n  acceptedNames:\n    kind: \"\"\n    plural: \"\"\n  conditions: null\n  storedVersions: null\n", "", 1)
	text = strings.Replace(text, "  creationTimestamp: null\n", "", 1)
	return os.WriteFile(file, []byte("---\n"+text), 0o644)
}

// stripUnder removes the transition rules of the property at path (names from node
// down) and of everything below it. Map values are copies, so each level writes its
// changed child back.
func stripUnder(node *apiextensionsv1.JSONSchemaProps, path []string) error {
	if len(path) == 0 {
		dropTransitionRules(node)
		return nil
	}
	child, ok := node.Properties[path[0]]
	if !ok {
		return fmt.Errorf("no property %q", path[0])
	}
	if err := stripUnder(&child, path[1:]); err != nil {
		return err
	}
	node.Properties[path[0]] = child
	return nil
}

// dropTransitionRules removes every rule that reads oldSelf from the schema and from
// everything below it.
func dropTransitionRules(node *apiextensionsv1.JSONSchemaProps) {
	kept := node.XValidations[:0]
	for _, rule := range node.XValidations {
		if !strings.Contains(rule.Rule, "oldSelf") {
			kept = append(kept, rule)
		}
	}
	node.XValidations = kept
	if len(kept) == 0 {
		node.XValidations = nil
	}
	for name, child := range node.Properties {
		dropTransitionRules(&child)
		node.Properties[name] = child
	}
	if node.Items != nil && node.Items.Schema != nil {
		dropTransitionRules(node.Items.Schema)
	}
	if node.AdditionalProperties != nil && node.AdditionalProperties.Schema != nil {
		dropTransitionRules(node.AdditionalProperties.Schema)
	}
}
