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

// Command ec2-operator-scorecard holds ec2-operator's custom operator-sdk scorecard
// tests. The built-in scorecard tests only check that the bundle is well formed; these
// check that the installed operator works. operator-sdk scorecard runs the test image
// in a pod with the bundle unpacked at /bundle and SCORECARD_NAMESPACE set to the
// pod's namespace, and reads the JSON test status the program prints.
//
// Usage:
//
//	ec2-operator-scorecard instance-ready
//
// instance-ready creates the first EC2Instance example of the CSV's alm-examples
// annotation (the sample EC2Instance) in the namespace, passes when its Ready condition is True for its
// current generation, and deletes it again, waiting until the operator has released it
// (so the instance is terminated). The pod's service account needs create, get and
// delete on EC2Instances (docs/scorecard-rbac.yaml).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// instanceReadyTest is the name of the test that waits for an example to be Ready.
const instanceReadyTest = "instance-ready"

func main() {
	var status scapiv1alpha3.TestStatus
	if len(os.Args) != 2 || os.Args[1] != instanceReadyTest {
		status = result(scapiv1alpha3.FailState, "", fmt.Errorf("unknown test %v: this image runs %q", os.Args[1:], instanceReadyTest))
	} else {
		status = runInstanceReady()
	}
	out, err := json.MarshalIndent(status, "", "    ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(string(out))
}

// runInstanceReady configures the test from the environment and runs it.
func runInstanceReady() scapiv1alpha3.TestStatus {
	cfg := instanceReadyConfig{
		bundleDir: envOr("SCORECARD_BUNDLE_DIR", "/bundle"),
		namespace: os.Getenv("SCORECARD_NAMESPACE"),
		timeout:   5 * time.Minute,
	}
	if v := os.Getenv("SCORECARD_READY_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return result(scapiv1alpha3.ErrorState, "", fmt.Errorf("SCORECARD_READY_TIMEOUT %q: %w", v, err))
		}
		cfg.timeout = d
	}
	if cfg.namespace == "" {
		return result(scapiv1alpha3.ErrorState, "", fmt.Errorf("SCORECARD_NAMESPACE is not set (operator-sdk scorecard sets it to the test pod's namespace)"))
	}
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return result(scapiv1alpha3.ErrorState, "", fmt.Errorf("no Kubernetes configuration: %w", err))
	}
	c, err := client.New(restConfig, client.Options{})
	if err != nil {
		return result(scapiv1alpha3.ErrorState, "", err)
	}
	// The whole test, cleanup included, fits in twice the Ready timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.timeout)
	defer cancel()
	return instanceReady(ctx, c, cfg)
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// result is a status with one result of the given state; err, when set, is its error.
func result(state scapiv1alpha3.State, log string, err error) scapiv1alpha3.TestStatus {
	r := scapiv1alpha3.TestResult{Name: instanceReadyTest, State: state, Log: log, Errors: []string{}, Suggestions: []string{}}
	if err != nil {
		r.Errors = append(r.Errors, err.Error())
	}
	return scapiv1alpha3.TestStatus{Results: []scapiv1alpha3.TestResult{r}}
}
