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
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// maxCreatesInFlight bounds how many instances one pass creates at once.
const maxCreatesInFlight = 32

// createAll creates the named instances, each with its place in its launch batch,
// in rounds that double while every create succeeds (1, 2, 4, ... up to
// maxCreatesInFlight at once), as a ReplicaSet creates its pods: a thousand
// instances are not a thousand requests one after another, and a template or a
// quota the API server refuses stops the pass after a request or two, not a
// thousand. It returns the names created (or found there already) and the first
// error.
func (r *Reconciler) createAll(ctx context.Context, set *computev1alpha1.EC2InstanceSet, hash string, names []string) ([]string, error) {
	batches := launchBatches(set, hash, names)
	var created []string
	for start, round := 0, 1; start < len(names); start, round = start+round, min(2*round, maxCreatesInFlight) {
		chunk := names[start:min(len(names), start+round)]
		errs := make([]error, len(chunk))
		var wg sync.WaitGroup
		for i, name := range chunk {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = r.createOne(ctx, set, hash, name, batches)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return created, err
			}
			created = append(created, chunk[i])
		}
	}
	return created, nil
}

// createOne creates one instance; one that exists already (a pass repeated after a
// crash or a stale read) counts as created.
func (r *Reconciler) createOne(ctx context.Context, set *computev1alpha1.EC2InstanceSet, hash, name string, batches map[string]plan.Batch) error {
	child, err := newInstance(set, hash, name, r.Scheme())
	if err != nil {
		return err
	}
	if b, ok := batches[name]; ok {
		child.Annotations[computev1alpha1.LaunchBatchAnnotation] = b.String()
	}
	if err := r.Create(ctx, child); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
