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
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// manifest is what is written of an object: what a user applies, without the empty
// status and the server-set metadata a full object would carry.
type manifest struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Annotations map[string]string `json:"annotations,omitempty"`
	} `json:"metadata"`
	Spec computev1alpha1.EC2InstanceSpec `json:"spec"`
}

func manifestOf(obj computev1alpha1.EC2Instance) manifest {
	m := manifest{TypeMeta: obj.TypeMeta, Spec: obj.Spec}
	m.Metadata.Name, m.Metadata.Namespace, m.Metadata.Annotations = obj.Name, obj.Namespace, obj.Annotations
	return m
}

// render writes one object in format: YAML, or indented JSON as kubectl prints it.
func render(obj computev1alpha1.EC2Instance, format string) ([]byte, error) {
	if format == "json" {
		return marshalJSON(manifestOf(obj))
	}
	return yaml.Marshal(manifestOf(obj))
}

func marshalJSON(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// renderAll writes the objects into one stream: YAML documents, a v1 List in JSON, as
// kubectl get -o json does for several objects, or kubectl's -o name lines.
func renderAll(objs []computev1alpha1.EC2Instance, format string) ([]byte, error) {
	if format == "name" {
		var names bytes.Buffer
		for _, obj := range objs {
			fmt.Fprintf(&names, "ec2instance.%s/%s\n", computev1alpha1.GroupVersion.Group, obj.Name)
		}
		return names.Bytes(), nil
	}
	if format == "json" {
		list := struct {
			APIVersion string     `json:"apiVersion"`
			Kind       string     `json:"kind"`
			Items      []manifest `json:"items"`
		}{APIVersion: "v1", Kind: "List", Items: []manifest{}}
		for _, obj := range objs {
			list.Items = append(list.Items, manifestOf(obj))
		}
		return marshalJSON(list)
	}
	var all bytes.Buffer
	for i, obj := range objs {
		doc, err := render(obj, format)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			all.WriteString("---\n")
		}
		all.Write(doc)
	}
	return all.Bytes(), nil
}

// writeManifests writes the objects in format into one file (or standard output for
// "-"), or, with dir set, one file per object named after it. Files are written
// whole or not at all: a failed import leaves no half manifest behind.
func writeManifests(objs []computev1alpha1.EC2Instance, format, output, dir string, stdout io.Writer) error {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, obj := range objs {
			doc, err := render(obj, format)
			if err != nil {
				return err
			}
			if err := writeFile(filepath.Join(dir, obj.Name+"."+format), doc); err != nil {
				return err
			}
		}
		return nil
	}
	all, err := renderAll(objs, format)
	if err != nil {
		return err
	}
	if output == "-" {
		_, err := stdout.Write(all)
		return err
	}
	return writeFile(output, all)
}

// writeFile writes through a temporary file renamed into place.
func writeFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}
