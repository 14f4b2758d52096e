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

package tlsprofile

import (
	"context"
	"crypto/tls"
	"fmt"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// The manager reads the TLS security profile of OpenShift's cluster-wide API server
// configuration, and nothing else of it: one object, by name. Listing and watching by
// name (a metadata.name field selector) is what an informer needs; Kubernetes
// authorizes such a list or watch against resourceNames.
//
// +kubebuilder:rbac:groups=config.openshift.io,resources=apiservers,resourceNames=cluster,verbs=get;list;watch

// APIServerGVR is OpenShift's API server configuration, config.openshift.io/v1.
var APIServerGVR = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "apiservers"}

// ClusterConfigName is the one APIServer object OpenShift reads.
const ClusterConfigName = "cluster"

// OnOpenShift says whether the cluster serves OpenShift's APIServer configuration.
func OnOpenShift(d discovery.DiscoveryInterface) (bool, error) {
	resources, err := d.ServerResourcesForGroupVersion(APIServerGVR.GroupVersion().String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discovering %s: %w", APIServerGVR.GroupVersion(), err)
	}
	for _, r := range resources.APIResources {
		if r.Name == APIServerGVR.Resource {
			return true, nil
		}
	}
	return false, nil
}

// Follower keeps Current at the profile of the APIServer named cluster. It runs on
// every replica (every replica serves metrics), reacts to a change through its watch,
// and keeps the settings in force when the profile cannot be read or is invalid.
type Follower struct {
	Client  dynamic.Interface
	Current *Current
	Log     logr.Logger
}

// Sync reads the profile once. The manager calls it before its servers start, so that
// they never serve a weaker profile than the cluster's, even for a moment.
func (f *Follower) Sync(ctx context.Context) error {
	obj, err := f.Client.Resource(APIServerGVR).Get(ctx, ClusterConfigName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		f.observe(nil)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the cluster's TLS security profile (apiservers.config.openshift.io %s): %w", ClusterConfigName, err)
	}
	f.observe(obj)
	return nil
}

// Start watches the APIServer named cluster until ctx ends.
func (f *Follower) Start(ctx context.Context) error {
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(f.Client, 0, metav1.NamespaceAll, func(o *metav1.ListOptions) {
		o.FieldSelector = "metadata.name=" + ClusterConfigName
	})
	informer := factory.ForResource(APIServerGVR).Informer()
	// A failing list or watch (RBAC, a removed CRD) is logged through the manager's
	// logger, not only client-go's, and retried with the informer's backoff.
	if err := informer.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		f.Log.Error(err, "listing or watching the cluster's TLS security profile; retrying", "profile", f.Current.Get().Profile)
		cache.DefaultWatchErrorHandler(ctx, r, err)
	}); err != nil {
		return err
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { f.observe(asUnstructured(obj)) },
		UpdateFunc: func(_, obj any) { f.observe(asUnstructured(obj)) },
		DeleteFunc: func(any) { f.observe(nil) },
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	<-ctx.Done()
	factory.Shutdown()
	return nil
}

// NeedLeaderElection is false: every replica serves metrics.
func (f *Follower) NeedLeaderElection() bool { return false }

func asUnstructured(obj any) *unstructured.Unstructured {
	u, _ := obj.(*unstructured.Unstructured)
	return u
}

// observe applies the profile of obj (nil: no APIServer object, which OpenShift reads
// as Intermediate) and logs a change.
func (f *Follower) observe(obj *unstructured.Unstructured) {
	spec := Spec{}
	if obj != nil {
		raw, found, err := unstructured.NestedMap(obj.Object, "spec", "tlsSecurityProfile")
		if err == nil && found {
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &spec)
		}
		if err != nil {
			f.Log.Error(err, "cannot read the cluster's TLS security profile; keeping the settings in force", "profile", f.Current.Get().Profile)
			return
		}
	}
	settings, err := Resolve(spec)
	if err != nil {
		f.Log.Error(err, "the cluster's TLS security profile is invalid; keeping the settings in force", "profile", f.Current.Get().Profile)
		return
	}
	settings.Profile += " (the cluster's APIServer)"
	if f.Current.Set(settings) {
		f.Log.Info("TLS servers follow the cluster's TLS security profile", "profile", settings.Profile, "minVersion", tls.VersionName(settings.MinVersion), "cipherSuites", len(settings.CipherSuites))
	}
}
