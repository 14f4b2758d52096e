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

package controller

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/memory"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// remember records the object in the reconciler's memory (package memory); an earlier
// object of the same name with another UID is forgotten.
func (r *EC2InstanceReconciler) remember(name types.NamespacedName, obj *computev1alpha1.EC2Instance) {
	if f, ok := r.memory.Remember(name, obj); ok {
		r.forgotten(f)
	}
}

// forgetObject drops everything remembered about an object that no longer exists.
func (r *EC2InstanceReconciler) forgetObject(name types.NamespacedName) {
	if f, ok := r.memory.Forget(name); ok {
		r.forgotten(f)
		r.Metrics.ForgetInstance(name.Namespace, name.Name)
	}
}

// forgotten drops what the reconciler keeps about a forgotten object outside its
// memory: the watch of its user data source and its metrics. Every map the reconciler
// keeps per object is thereby bounded by the objects that exist.
func (r *EC2InstanceReconciler) forgotten(f memory.Forgotten) {
	r.sources.release(f.UID)
	for key, n := range f.Paused {
		account, region, _ := strings.Cut(key, "/")
		r.Metrics.ReplacementsPaused(account, region, n)
	}
	r.Metrics.InstanceState(f.UID, "")
}

// release removes the finalizer, letting Kubernetes delete the object; the pass ends
// there.
func (r *EC2InstanceReconciler) release(ctx context.Context, s *pass.Scope) pass.Step {
	r.Metrics.InstanceState(s.Obj.UID, "")
	r.memory.Attributes.Forget(s.Obj.UID)
	r.memory.Launches.Forget(s.Obj.UID)
	if err := s.PatchMetadata(ctx, r.Client, func() {
		controllerutil.RemoveFinalizer(s.Obj, computev1alpha1.Finalizer)
	}); client.IgnoreNotFound(err) != nil {
		return pass.Errored(err)
	}
	s.Released = true
	return pass.DoneAfter(0)
}
