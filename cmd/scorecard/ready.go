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
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	apimanifests "github.com/operator-framework/api/pkg/manifests"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// instanceReadyConfig says where the bundle is, where to create the example and how
// long it may take to become Ready.
type instanceReadyConfig struct {
	bundleDir string
	namespace string
	timeout   time.Duration
}

// pollInterval is how often the example's status is read.
const pollInterval = 2 * time.Second

// instanceReady creates the CSV's first example, waits for Ready, and deletes it.
func instanceReady(ctx context.Context, c client.Client, cfg instanceReadyConfig) scapiv1alpha3.TestStatus {
	var log strings.Builder
	logf := func(format string, args ...any) { fmt.Fprintf(&log, format+"\n", args...) }

	example, err := firstExample(cfg.bundleDir)
	if err != nil {
		return result(scapiv1alpha3.ErrorState, log.String(), err)
	}
	obj := example.DeepCopy()
	obj.SetNamespace(cfg.namespace)
	// A generated name never collides with the example a user applied themselves.
	obj.SetGenerateName(example.GetName() + "-scorecard-")
	obj.SetName("")
	if err := c.Create(ctx, obj); err != nil {
		return result(scapiv1alpha3.ErrorState, log.String(), fmt.Errorf("creating the example %s: %w", example.GetKind(), err))
	}
	logf("created %s %s/%s", obj.GetKind(), obj.GetNamespace(), obj.GetName())

	readyErr := waitReady(ctx, c, obj, cfg.timeout, logf)
	cleanupErr := deleteAndWait(ctx, c, obj, cfg.timeout, logf)
	switch {
	case readyErr != nil:
		res := result(scapiv1alpha3.FailState, log.String(), readyErr)
		res.Results[0].Suggestions = append(res.Results[0].Suggestions,
			"check the operator's logs and the object's events (kubectl describe); the Ready condition names the reason",
			"against real AWS the example's subnet and image must exist in the operator's region")
		if cleanupErr != nil {
			res.Results[0].Errors = append(res.Results[0].Errors, cleanupErr.Error())
		}
		return res
	case cleanupErr != nil:
		return result(scapiv1alpha3.FailState, log.String(), cleanupErr)
	}
	return result(scapiv1alpha3.PassState, log.String(), nil)
}

// firstExample reads the first EC2Instance of the CSV's alm-examples annotation. The
// other examples (an AWSAccount) need an AWS account and role of the user's own.
func firstExample(bundleDir string) (*unstructured.Unstructured, error) {
	bundle, err := apimanifests.GetBundleFromDir(bundleDir)
	if err != nil {
		return nil, fmt.Errorf("reading the bundle in %s: %w", bundleDir, err)
	}
	if bundle.CSV == nil {
		return nil, fmt.Errorf("the bundle in %s has no ClusterServiceVersion", bundleDir)
	}
	var examples []unstructured.Unstructured
	if err := json.Unmarshal([]byte(bundle.CSV.GetAnnotations()["alm-examples"]), &examples); err != nil {
		return nil, fmt.Errorf("parsing alm-examples: %w", err)
	}
	for i := range examples {
		if examples[i].GetKind() == "EC2Instance" {
			return &examples[i], nil
		}
	}
	return nil, errors.New("alm-examples holds no EC2Instance example")
}

// waitReady polls until the Ready condition is True for the object's current
// generation, and reports the last condition when the timeout passes.
func waitReady(ctx context.Context, c client.Client, obj *unstructured.Unstructured, timeout time.Duration, logf func(string, ...any)) error {
	key := client.ObjectKeyFromObject(obj)
	var last string
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		got := obj.DeepCopy()
		if err := c.Get(ctx, key, got); err != nil {
			return false, err
		}
		ready, summary := readyCondition(got)
		if summary != last {
			logf("%s: Ready %s", time.Since(start).Round(time.Second), summary)
			last = summary
		}
		return ready, nil
	})
	if err != nil {
		return fmt.Errorf("%s %s did not become Ready within %s; last Ready condition: %s", obj.GetKind(), key, timeout, last)
	}
	return nil
}

// readyCondition reports whether Ready is True for the current generation, and the
// condition in words.
func readyCondition(obj *unstructured.Unstructured) (bool, string) {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, raw := range conditions {
		c, _ := raw.(map[string]any)
		if c["type"] != "Ready" {
			continue
		}
		observed, _ := c["observedGeneration"].(int64)
		if f, ok := c["observedGeneration"].(float64); ok {
			observed = int64(f)
		}
		summary := fmt.Sprintf("%v (%v): %v", c["status"], c["reason"], c["message"])
		return c["status"] == "True" && observed >= obj.GetGeneration(), summary
	}
	return false, "not reported yet"
}

// deleteAndWait deletes the object and waits until it is gone, which for an
// EC2Instance means the operator terminated (or released) its instance.
func deleteAndWait(ctx context.Context, c client.Client, obj *unstructured.Unstructured, timeout time.Duration, logf func(string, ...any)) error {
	if err := c.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting %s: %w", obj.GetName(), err)
	}
	key := client.ObjectKeyFromObject(obj)
	err := wait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, key, obj.DeepCopy())
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return fmt.Errorf("%s %s was not released within %s after deletion: %w", obj.GetKind(), key, timeout, err)
	}
	logf("deleted %s %s", obj.GetKind(), key)
	return nil
}
