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
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/event"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// sourceWatches watches the Secrets and ConfigMaps that some EC2Instance's
// userDataFrom names, for as long as one does, so that an edit of the value brings
// the object back within seconds instead of at the next attribute resync. The
// operator may list and watch Secrets only where the namespace granted it
// (UserDataReaderRole), which is why the watches are per namespace and started on
// demand rather than one cluster-wide informer.
//
// A watch selects one source by name (a field selector on metadata.name), so what the
// operator keeps and is sent grows with what objects read, not with what else the
// namespace holds: 10,000 unrelated Secrets next to a fleet's one cloud-init cost
// nothing. A namespace whose objects read more than namedWatchLimit sources of one
// kind gets one watch of the whole kind instead, so that thousands of sources never
// mean thousands of watch connections; it keeps that watch until no object of the
// namespace reads the kind.
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
	// retry is how long a watch that was refused waits before the next try.
	retry time.Duration
	now   func() time.Time
	log   logr.Logger
	// namedLimit is namedWatchLimit, smaller in tests.
	namedLimit int
	// requests carries the objects to reconcile to the controller.
	requests chan event.GenericEvent

	groups map[groupKey]*sourceGroup
	// users holds what each object reads; groups[key].users the same, by group.
	users map[types.UID]sourceUser
}

// namedWatchLimit is how many sources of one kind in one namespace are watched each by
// its name before one watch of the namespace's kind replaces them.
const namedWatchLimit = 16

// wholeKind is the name under which a group keeps its watch of the whole kind.
const wholeKind = ""

// groupKey names the sources of one kind in one namespace.
type groupKey struct {
	namespace string
	kind      userDataSourceKind
}

// sourceGroup is what is read and watched of one kind in one namespace.
type sourceGroup struct {
	users map[types.UID]sourceUser
	// readers counts the users of each source by its name.
	readers map[string]int
	// watches are by source name, or under wholeKind the watch of the whole kind.
	watches map[string]*sourceWatch
}

// sourceUser is an object that reads a source, and the source's name.
type sourceUser struct {
	key    groupKey
	source string
	object types.NamespacedName
}

// sourceWatch is one running (or refused) watch.
type sourceWatch struct {
	informer toolscache.SharedIndexInformer
	stop     chan struct{}
	// refusedUntil, when set, says the API server refused the watch and when it is
	// tried again; until then the watch is not running.
	refusedUntil time.Time
}

func (w *sourceWatches) init(retry time.Duration, now func() time.Time, log logr.Logger) {
	w.retry, w.now, w.log = retry, now, log
	if w.namedLimit <= 0 {
		w.namedLimit = namedWatchLimit
	}
	w.groups = map[groupKey]*sourceGroup{}
	w.users = map[types.UID]sourceUser{}
	w.requests = make(chan event.GenericEvent, 1024)
}

// use records that the object reads ref and makes sure a watch covers it.
func (w *sourceWatches) use(obj types.NamespacedName, uid types.UID, ref userDataRef) {
	if w.client == nil {
		return
	}
	user := sourceUser{key: groupKey{namespace: ref.namespace, kind: ref.kind}, source: ref.name, object: obj}
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.users[uid]; ok && (old.key != user.key || old.source != user.source) {
		w.dropLocked(uid, old)
	}
	g := w.groups[user.key]
	if g == nil {
		g = &sourceGroup{users: map[types.UID]sourceUser{}, readers: map[string]int{}, watches: map[string]*sourceWatch{}}
		w.groups[user.key] = g
	}
	if _, ok := g.users[uid]; !ok {
		g.readers[user.source]++
	}
	w.users[uid], g.users[uid] = user, user
	w.coverLocked(user.key, g, user.source)
}

// coverLocked starts the watch that covers the source, unless it runs or was refused
// a moment ago: the named one, or the whole kind's once the group reads more than
// namedLimit sources (which stops the named ones). The named watches stop before the
// whole kind's has listed, and no edit is lost in between: that first listing adds
// every source, which brings back every object that reads one, and each pass compares
// the source's version with the one it last used.
func (w *sourceWatches) coverLocked(key groupKey, g *sourceGroup, source string) {
	name := source
	if _, whole := g.watches[wholeKind]; whole || len(g.readers) > w.namedLimit {
		name = wholeKind
		for n, sw := range g.watches {
			if n != wholeKind {
				sw.halt()
				delete(g.watches, n)
			}
		}
	}
	sw := g.watches[name]
	if sw == nil {
		sw = &sourceWatch{}
		g.watches[name] = sw
	}
	if sw.informer == nil && !w.now().Before(sw.refusedUntil) {
		w.startLocked(key, name, sw)
	}
}

// release records that the object reads nothing (any more, or no longer exists).
func (w *sourceWatches) release(uid types.UID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.users[uid]; ok {
		w.dropLocked(uid, old)
	}
}

// dropLocked removes the user, stops the named watch of its source when nobody else
// reads that, and the group's last watch with its last user.
func (w *sourceWatches) dropLocked(uid types.UID, user sourceUser) {
	delete(w.users, uid)
	g := w.groups[user.key]
	if g == nil {
		return
	}
	if _, ok := g.users[uid]; !ok {
		return
	}
	delete(g.users, uid)
	if g.readers[user.source]--; g.readers[user.source] > 0 {
		return
	}
	delete(g.readers, user.source)
	if sw := g.watches[user.source]; sw != nil && user.source != wholeKind {
		sw.halt()
		delete(g.watches, user.source)
	}
	if len(g.users) == 0 {
		for _, sw := range g.watches {
			sw.halt()
		}
		delete(w.groups, user.key)
	}
}

// halt stops the watch if it runs.
func (sw *sourceWatch) halt() {
	if sw.informer != nil {
		close(sw.stop)
		sw.informer, sw.stop = nil, nil
	}
}

// version returns the resourceVersion of the source ref names as the watch covering
// it last saw it ("absent" when it does not exist), and false when no watch of it has
// synced (none runs, or it was refused): then nothing is known.
func (w *sourceWatches) version(ref userDataRef) (string, bool) {
	w.mu.Lock()
	var inf toolscache.SharedIndexInformer
	if g := w.groups[groupKey{namespace: ref.namespace, kind: ref.kind}]; g != nil {
		sw := g.watches[wholeKind]
		if sw == nil {
			sw = g.watches[ref.name]
		}
		if sw != nil {
			inf = sw.informer
		}
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
	for _, g := range w.groups {
		watches += len(g.watches)
	}
	return watches, len(w.users)
}

// startLocked starts the metadata-only watch of the named source, or of the whole
// kind in the namespace for wholeKind.
func (w *sourceWatches) startLocked(key groupKey, name string, sw *sourceWatch) {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	if key.kind == sourceConfigMap {
		gvr.Resource = "configmaps"
	}
	var selectName metadatainformer.TweakListOptionsFunc
	if name != wholeKind {
		selectName = func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}
	}
	inf := metadatainformer.NewFilteredMetadataInformer(w.client, gvr, key.namespace, 0, toolscache.Indexers{}, selectName).Informer()
	stop := make(chan struct{})
	_ = inf.SetTransform(keepNameAndVersion)
	_ = inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *toolscache.Reflector, err error) {
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			w.refused(key, name, inf, err)
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
func (w *sourceWatches) refused(key groupKey, name string, inf toolscache.SharedIndexInformer, err error) {
	w.mu.Lock()
	g := w.groups[key]
	var sw *sourceWatch
	if g != nil {
		sw = g.watches[name]
	}
	if sw == nil || sw.informer != inf {
		w.mu.Unlock()
		return
	}
	sw.halt()
	sw.refusedUntil = w.now().Add(w.retry)
	objects := usersOf(g, name)
	w.mu.Unlock()
	w.log.Info("userDataFrom sources are read but not watched: the operator may not list and watch them in the namespace; edits are seen at the next attribute check",
		"namespace", key.namespace, "kind", key.kind, "retryIn", w.retry.String(), "error", err.Error())
	w.send(objects, nil)
}

// changed brings back the objects that read the source the event is about.
func (w *sourceWatches) changed(key groupKey, o any, stop <-chan struct{}) {
	m, err := meta.Accessor(o)
	if err != nil {
		return
	}
	w.mu.Lock()
	var objects []types.NamespacedName
	if g := w.groups[key]; g != nil {
		objects = usersOf(g, m.GetName())
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

// usersOf lists the objects of the group that read the named source (any, for
// wholeKind).
func usersOf(g *sourceGroup, source string) []types.NamespacedName {
	var out []types.NamespacedName
	for _, u := range g.users {
		if source == wholeKind || u.source == source {
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
