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
	"sort"
	"strings"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// summary is a table of every EC2Instance with its instance, state and each
// condition's status and reason, the first thing support reads; the full objects,
// with the conditions' messages, are in the namespaces' lists.
func summary(instances []unstructured.Unstructured) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tNAME\tINSTANCE\tSTATE\tCONDITIONS")
	sorted := append([]unstructured.Unstructured(nil), instances...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].GetNamespace() != sorted[j].GetNamespace() {
			return sorted[i].GetNamespace() < sorted[j].GetNamespace()
		}
		return sorted[i].GetName() < sorted[j].GetName()
	})
	for _, obj := range sorted {
		id, _, _ := unstructured.NestedString(obj.Object, "status", "instanceId")
		state, _, _ := unstructured.NestedString(obj.Object, "status", "state")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", obj.GetNamespace(), obj.GetName(), orDash(id), orDash(state), conditions(obj))
	}
	_ = tw.Flush()
	fmt.Fprintf(&b, "\n%d EC2Instances\n", len(instances))
	return b.String()
}

// conditions renders status.conditions as Type=Status(Reason), in the object's order.
func conditions(obj unstructured.Unstructured) string {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	var parts []string
	for _, item := range list {
		c, ok := item.(map[string]any)
		if !ok {
			continue
		}
		parts = append(parts, fmt.Sprintf("%v=%v(%v)", c["type"], c["status"], c["reason"]))
	}
	return orDash(strings.Join(parts, " "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
