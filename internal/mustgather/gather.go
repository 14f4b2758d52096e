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

// Package mustgather collects what a support case about ec2-operator needs, in the
// layout `oc adm must-gather` copies back: the operator's API objects with their
// conditions and events, its installation (Deployment, pods and their logs, RBAC,
// OLM's CSV, Subscription and InstallPlan, the ServiceMonitor and PrometheusRule),
// and never a Secret's or ConfigMap's data, user data or credentials.
package mustgather

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Gatherer collects into Dest. Every failure to read one resource is logged and the
// gather goes on: a partial archive is worth more to support than none.
type Gatherer struct {
	Dynamic dynamic.Interface
	Core    kubernetes.Interface
	// Dest is the directory the archive is written to (/must-gather in the pod).
	Dest string
	// LogsSince limits the pods' logs to those newer than it (oc adm must-gather
	// --since and --since-time); zero gathers all.
	LogsSince time.Time
	// Log receives one line per resource gathered or skipped.
	Log io.Writer

	out      *writer
	failures int
}

// Run gathers everything and returns an error only when nothing useful could be
// written or some resource failed (after writing all the others).
func (g *Gatherer) Run(ctx context.Context) error {
	g.out = &writer{root: g.Dest}
	if err := g.out.start(); err != nil {
		return err
	}
	namespaces, err := g.operatorNamespaces(ctx)
	if err != nil {
		g.logf("finding the operator's namespaces: %v", err)
		g.failures++
	}
	g.logf("operator namespaces: %s", strings.Join(namespaces, ", "))
	var instances []unstructured.Unstructured
	for _, t := range targets {
		items := g.gatherTarget(ctx, t, namespaces)
		if t.gvr == ec2InstancesGVR {
			instances = items
		}
	}
	g.gatherAPIEvents(ctx)
	if err := g.out.writeFile("summary.txt", []byte(summary(instances))); err != nil {
		return err
	}
	for _, ns := range namespaces {
		g.gatherLogs(ctx, ns)
	}
	if g.failures > 0 {
		return fmt.Errorf("%d resources could not be gathered (see gather.log)", g.failures)
	}
	return nil
}

// operatorNamespaces are the namespaces with an ec2-operator Deployment (any install
// method labels it app.kubernetes.io/name=ec2-operator) or an ec2-operator CSV that
// OLM did not copy there (a copied CSV marks a watched namespace, not an install).
func (g *Gatherer) operatorNamespaces(ctx context.Context) ([]string, error) {
	set := map[string]bool{}
	deployments, err := g.Dynamic.Resource(deploymentsGVR).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=ec2-operator"})
	if err != nil {
		return nil, err
	}
	for _, d := range deployments.Items {
		set[d.GetNamespace()] = true
	}
	csvs, err := g.Dynamic.Resource(csvGVR).List(ctx, metav1.ListOptions{LabelSelector: "!olm.copiedFrom"})
	if err != nil && !notServed(err) {
		return sortedKeys(set), err
	}
	if csvs != nil {
		for _, c := range csvs.Items {
			if strings.HasPrefix(c.GetName(), "ec2-operator.") {
				set[c.GetNamespace()] = true
			}
		}
	}
	return sortedKeys(set), nil
}

// gatherTarget lists one resource where its scope says and writes the sanitised list.
func (g *Gatherer) gatherTarget(ctx context.Context, t target, namespaces []string) []unstructured.Unstructured {
	switch t.scope {
	case clusterScoped, everyNamespace:
		items, ok := g.list(ctx, t, "")
		if !ok {
			return nil
		}
		g.writeByNamespace(t, items)
		return items
	default:
		var all []unstructured.Unstructured
		for _, ns := range namespaces {
			items, ok := g.list(ctx, t, ns)
			if !ok {
				return nil
			}
			g.writeByNamespace(t, items)
			all = append(all, items...)
		}
		return all
	}
}

// list reads one resource in a namespace ("" for all) and sanitises the objects.
// A resource the cluster does not serve (no OLM, no prometheus-operator) is skipped.
func (g *Gatherer) list(ctx context.Context, t target, namespace string) ([]unstructured.Unstructured, bool) {
	client := g.Dynamic.Resource(t.gvr)
	var (
		list *unstructured.UnstructuredList
		err  error
	)
	if namespace == "" {
		list, err = client.List(ctx, metav1.ListOptions{})
	} else {
		list, err = client.Namespace(namespace).List(ctx, metav1.ListOptions{})
	}
	name := resourceName(t.gvr)
	switch {
	case notServed(err):
		g.logf("%s: not served by this cluster, skipped", name)
		return nil, false
	case err != nil:
		g.logf("%s: %v", name, err)
		g.failures++
		return nil, false
	}
	var kept []unstructured.Unstructured
	for i := range list.Items {
		if t.keep == nil || t.keep(&list.Items[i]) {
			sanitize(&list.Items[i])
			kept = append(kept, list.Items[i])
		}
	}
	return kept, true
}

// gatherAPIEvents writes the events about EC2Instances and AWSAccounts, wherever they
// are (an EC2Instance's in its namespace, an AWSAccount's in default).
func (g *Gatherer) gatherAPIEvents(ctx context.Context) {
	for _, kind := range []string{"EC2Instance", "AWSAccount"} {
		selector := "involvedObject.apiVersion=" + ec2InstancesGVR.GroupVersion().String() + ",involvedObject.kind=" + kind
		events, err := g.Core.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			g.logf("events of %ss: %v", kind, err)
			g.failures++
			continue
		}
		byNamespace := map[string][]any{}
		for i := range events.Items {
			e := events.Items[i]
			e.ManagedFields = nil
			byNamespace[e.Namespace] = append(byNamespace[e.Namespace], &e)
		}
		for ns, items := range byNamespace {
			path := fmt.Sprintf("namespaces/%s/core/events-%s.yaml", ns, strings.ToLower(kind))
			if err := g.out.writeList(path, "v1", items); err != nil {
				g.logf("%s: %v", path, err)
				g.failures++
			}
		}
		g.logf("events of %ss: %d", kind, len(events.Items))
	}
}

// writeByNamespace writes one list file per namespace (or one cluster-scoped file).
func (g *Gatherer) writeByNamespace(t target, items []unstructured.Unstructured) {
	byNamespace := map[string][]any{}
	for i := range items {
		byNamespace[items[i].GetNamespace()] = append(byNamespace[items[i].GetNamespace()], items[i].Object)
	}
	for ns, objs := range byNamespace {
		path := resourcePath(t.gvr, ns)
		if err := g.out.writeList(path, t.gvr.GroupVersion().String(), objs); err != nil {
			g.logf("%s: %v", path, err)
			g.failures++
		}
	}
	g.logf("%s: %d", resourceName(t.gvr), len(items))
}

func (g *Gatherer) logf(format string, args ...any) {
	if g.Log != nil {
		fmt.Fprintf(g.Log, format+"\n", args...)
	}
	g.out.log(fmt.Sprintf(format, args...))
}

// notServed is the answer for a resource whose API the cluster does not have.
func notServed(err error) bool {
	return err != nil && (apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err))
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
