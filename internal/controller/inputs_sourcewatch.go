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
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/event"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// sourceWatches keeps one watch on the Secrets (or the ConfigMaps) of each namespace
// in which some EC2Instance's userDataFrom names one, for as long as one does, so
// that an edit of the value brings the object back within seconds instead of at the
// next attribute resync. The operator may list and watch Secrets only where the
// namespace granted it (UserDataReaderRole), which is why the watches are per
// namespace and started on demand rather than one cluster-wide informer.
//
// The watches are metadata-only and keep nothing but each object's name and
// resourceVersion (a transform drops labels, annotations and the rest): no value of a
// Secret, and not kubectl's last-applied annotation either, which holds one, ever
// enters the operator's memory through them. What a watch says is only a reason to
// reconcile: the pass reads the value itself from the API server.
type sourceWatches struct {
	mu sync.Mutex
	// client lists and watches metadata; nil disables the watches (the attribute
	// resync then finds edits).
	client metadata.Interface
	// retry is how long a namespace whose watch was refused waits before the next try.
	retry time.Duration
	now   func() time.Time
	log   logr.Logger
	// requests carries the objects to reconcile to the controller.
	requests chan event.GenericEvent

	watches map[watchKey]*sourceWatch
	// users holds what each object reads; watches[key].users the same, by key.
	users map[types.UID]sourceUser
}

// watchKey names one watch: a kind of source in a namespace.
type watchKey struct {
	namespace string
	kind      userDataSourceKind
}

// sourceUser is an object that reads a source, and the source's name.
type sourceUser struct {
	key    watchKey
	source string
	object types.NamespacedName
}

// sourceWatch is one running (or refused) watch.
type sourceWatch struct {
	users    map[types.UID]sourceUser
	informer toolscache.SharedIndexInformer
	stop     chan struct{}
	// refusedUntil, when set, says the API server refused the watch and when it is
	// tried again; until then the watch is not running.
	refusedUntil time.Time
}

func (w *sourceWatches) init(retry time.Duration, now func() time.Time, log logr.Logger) {
	w.retry, w.now, w.log = retry, now, log
	w.watches = map[watchKey]*sourceWatch{}
	w.users = map[types.UID]sourceUser{}
	w.requests = make(chan event.GenericEvent, 1024)
}

// use records that the object reads ref and starts the watch of its namespace and
// kind if none runs (or a refused one is due for another try).
func (w *sourceWatches) use(obj types.NamespacedName, uid types.UID, ref userDataRef) {
	if w.client == nil {
		return
	}
	key := watchKey{namespace: ref.namespace, kind: ref.kind}
	user := sourceUser{key: key, source: ref.name, object: obj}
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.users[uid]; ok && old.key != key {
		w.dropLocked(uid, old.key)
	}
	w.users[uid] = user
	sw := w.watches[key]
	if sw == nil {
		sw = &sourceWatch{users: map[types.UID]sourceUser{}}
		w.watches[key] = sw
	}
	sw.users[uid] = user
	if sw.informer == nil && !w.now().Before(sw.refusedUntil) {
		w.startLocked(key, sw)
	}
}

// release records that the object reads nothing (any more, or no longer exists).
func (w *sourceWatches) release(uid types.UID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.users[uid]; ok {
		w.dropLocked(uid, old.key)
	}
}

// dropLocked removes the user and stops the key's watch when nobody uses it.
func (w *sourceWatches) dropLocked(uid types.UID, key watchKey) {
	delete(w.users, uid)
	sw := w.watches[key]
	if sw == nil {
		return
	}
	delete(sw.users, uid)
	if len(sw.users) == 0 {
		if sw.informer != nil {
			close(sw.stop)
		}
		delete(w.watches, key)
	}
}

// version returns the resourceVersion of the source ref names as its namespace's
// watch last saw it ("absent" when it does not exist), and false when no watch of it
// has synced (none runs, or it was refused): then nothing is known.
func (w *sourceWatches) version(ref userDataRef) (string, bool) {
	w.mu.Lock()
	sw := w.watches[watchKey{namespace: ref.namespace, kind: ref.kind}]
	var inf toolscache.SharedIndexInformer
	if sw != nil {
		inf = sw.informer
	}
	w.mu.Unlock()
	if inf == nil || !inf.HasSynced() {
		return "", false
	}
	o, exists, err := inf.GetStore().GetByKey(ref.namespace + "/" + ref.name)
	if err != nil {
		return "", false
	}
	if !exists {
		return "absent", true
	}
	return versionOf(o), true
}

// counts says how many watches exist and how many objects use them (for tests and
// the bound on what is kept per object).
func (w *sourceWatches) counts() (watches, users int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watches), len(w.users)
}

// startLocked starts the metadata-only watch of the key's namespace and kind.
func (w *sourceWatches) startLocked(key watchKey, sw *sourceWatch) {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	if key.kind == sourceConfigMap {
		gvr.Resource = "configmaps"
	}
	inf := metadatainformer.NewFilteredMetadataInformer(w.client, gvr, key.namespace, 0, toolscache.Indexers{}, nil).Informer()
	stop := make(chan struct{})
	_ = inf.SetTransform(keepNameAndVersion)
	_ = inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *toolscache.Reflector, err error) {
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			w.refused(key, inf, err)
			return
		}
		toolscache.DefaultWatchErrorHandler(ctx, r, err)
	})
	_, _ = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) { w.changed(key, o, stop) },
		UpdateFunc: func(before, after any) {
			if versionOf(before) != versionOf(after) {
				w.changed(key, after, stop)
			}
		},
		DeleteFunc: func(o any) {
			if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			w.changed(key, o, stop)
		},
	})
	sw.informer, sw.stop = inf, stop
	go inf.Run(stop)
}

// refused stops a watch the API server refused (the namespace granted get but not
// list and watch, or took its grant back) and brings its objects back: their next
// pass reads the source with get and reports what it finds; edits are then seen at
// the attribute resync, and the watch is tried again after w.retry.
func (w *sourceWatches) refused(key watchKey, inf toolscache.SharedIndexInformer, err error) {
	w.mu.Lock()
	sw := w.watches[key]
	if sw == nil || sw.informer != inf {
		w.mu.Unlock()
		return
	}
	close(sw.stop)
	sw.informer, sw.stop = nil, nil
	sw.refusedUntil = w.now().Add(w.retry)
	objects := usersOf(sw, "")
	w.mu.Unlock()
	w.log.Info("userDataFrom sources are read but not watched: the operator may not list and watch them in the namespace; edits are seen at the next attribute check",
		"namespace", key.namespace, "kind", key.kind, "retryIn", w.retry.String(), "error", err.Error())
	w.send(objects, nil)
}

// changed brings back the objects that read the source the event is about.
func (w *sourceWatches) changed(key watchKey, o any, stop <-chan struct{}) {
	m, err := meta.Accessor(o)
	if err != nil {
		return
	}
	w.mu.Lock()
	var objects []types.NamespacedName
	if sw := w.watches[key]; sw != nil {
		objects = usersOf(sw, m.GetName())
	}
	w.mu.Unlock()
	w.send(objects, stop)
}

// send queues the objects, giving up when the watch stops.
func (w *sourceWatches) send(objects []types.NamespacedName, stop <-chan struct{}) {
	for _, o := range objects {
		ev := event.GenericEvent{Object: &computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name}}}
		select {
		case w.requests <- ev:
		case <-stop:
			return
		}
	}
}

// usersOf lists the objects of the watch that read the named source (any, for "").
func usersOf(sw *sourceWatch, source string) []types.NamespacedName {
	var out []types.NamespacedName
	for _, u := range sw.users {
		if source == "" || u.source == source {
			out = append(out, u.object)
		}
	}
	return out
}

// keepNameAndVersion is the watches' transform: everything but what identifies the
// object and its version is dropped before it is stored.
func keepNameAndVersion(o any) (any, error) {
	m, ok := o.(*metav1.PartialObjectMetadata)
	if !ok {
		return o, nil
	}
	return &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
	}}, nil
}

func versionOf(o any) string {
	if m, err := meta.Accessor(o); err == nil {
		return m.GetResourceVersion()
	}
	return ""
}
