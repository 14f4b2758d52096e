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

package instanceset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// hashLength is how many hex digits of the template hash a label and a name carry:
// 40 bits, so that two templates of one set collide with negligible chance.
const hashLength = 10

// listKey is the field that identifies an item of a list in ReplacementFields
// ("volumes[]"): data volumes are a map keyed by deviceName.
const listKey = "deviceName"

// TemplateHash hashes the fields of spec that an instance cannot take in place
// (computev1alpha1.ReplacementFields): two templates with the same hash differ only
// in what the set applies to its instances in place.
func TemplateHash(spec *computev1alpha1.EC2InstanceSpec) (string, error) {
	doc, err := asDocument(spec)
	if err != nil {
		return "", err
	}
	picked := map[string]any{}
	for _, path := range computev1alpha1.ReplacementFields {
		presence := strings.HasSuffix(path, "?")
		value := pick(doc, strings.Split(strings.TrimSuffix(path, "?"), "."))
		if presence {
			value = value != nil
		}
		picked[path] = value
	}
	// encoding/json writes map keys sorted, so equal picks give equal bytes.
	canonical, err := json.Marshal(picked)
	if err != nil {
		return "", fmt.Errorf("hashing the template: %w", err)
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])[:hashLength], nil
}

// pick returns the value at a path of field names; a name ending in "[]" is a list
// whose items are picked by their listKey, giving a map from key to the rest of the
// path's value. A missing field is nil.
func pick(doc any, path []string) any {
	if len(path) == 0 {
		return doc
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	name, isList := strings.CutSuffix(path[0], "[]")
	value, ok := obj[name]
	if !ok {
		return nil
	}
	if !isList {
		return pick(value, path[1:])
	}
	items, _ := value.([]any)
	byKey := map[string]any{}
	for _, item := range items {
		if m, ok := item.(map[string]any); ok {
			byKey[fmt.Sprint(m[listKey])] = pick(item, path[1:])
		}
	}
	return byKey
}

// stopsFor reports whether applying the template to obj changes a field EC2 changes
// only on a stopped instance (computev1alpha1.StopFields).
func stopsFor(set *computev1alpha1.EC2InstanceSet, obj *computev1alpha1.EC2Instance) bool {
	want, errWant := asDocument(&set.Spec.Template.Spec)
	have, errHave := asDocument(&obj.Spec)
	if errWant != nil || errHave != nil {
		return true // cannot tell: treat it as disruptive, the careful answer
	}
	for _, field := range computev1alpha1.StopFields {
		path := strings.Split(field, ".")
		if !reflect.DeepEqual(pick(want, path), pick(have, path)) {
			return true
		}
	}
	return false
}

// asDocument is a spec as JSON decodes it, for picking fields by their JSON names.
func asDocument(spec *computev1alpha1.EC2InstanceSpec) (map[string]any, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	return doc, json.Unmarshal(raw, &doc)
}
