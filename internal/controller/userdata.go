package controller

import (
	"context"
	"encoding/base64"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// maxUserDataBytes is EC2's limit on raw user data (16 KB, before base64 encoding).
const maxUserDataBytes = 16384

// Field indexes of EC2Instances by the Secret or ConfigMap their userDataFrom names,
// so that an edit of one reaches exactly the objects that use it.
const (
	userDataSecretIndex    = "spec.userDataFrom.secretKeyRef.name"
	userDataConfigMapIndex = "spec.userDataFrom.configMapKeyRef.name"
)

// userDataSourceKind names the kind of object a userDataFrom reads.
type userDataSourceKind string

const (
	sourceSecret    userDataSourceKind = "Secret"
	sourceConfigMap userDataSourceKind = "ConfigMap"
)

// userDataRef is one resolved userDataFrom reference.
type userDataRef struct {
	kind      userDataSourceKind
	namespace string
	name, key string
	base64    bool
}

func (u userDataRef) String() string {
	return fmt.Sprintf("%s %s/%s key %s", u.kind, u.namespace, u.name, u.key)
}

// userDataRefOf returns the object's userDataFrom reference, if any.
func userDataRefOf(obj *computev1alpha1.EC2Instance) (userDataRef, bool) {
	from := obj.Spec.UserDataFrom
	switch {
	case from == nil:
		return userDataRef{}, false
	case from.SecretKeyRef != nil:
		return userDataRef{kind: sourceSecret, namespace: obj.Namespace, name: from.SecretKeyRef.Name, key: from.SecretKeyRef.Key, base64: from.Base64}, true
	case from.ConfigMapKeyRef != nil:
		return userDataRef{kind: sourceConfigMap, namespace: obj.Namespace, name: from.ConfigMapKeyRef.Name, key: from.ConfigMapKeyRef.Key, base64: from.Base64}, true
	}
	return userDataRef{}, false
}

// userDataCache remembers the user data read from each Secret and ConfigMap key at a
// resourceVersion. The operator watches only the metadata of Secrets and ConfigMaps
// (a cache of every Secret's content in the watched namespaces would be a waste of
// memory and a needless copy of secrets); the content is read from the API server
// when the resourceVersion changes, and otherwise answered from here.
type userDataCache struct {
	mu      sync.Mutex
	entries map[userDataRef]userDataEntry
}

type userDataEntry struct {
	resourceVersion string
	content         string
}

// desiredUserData returns the user data the spec asks for: userData, or the value
// userDataFrom names. It never logs the value; errors name the source, not the content.
func (r *EC2InstanceReconciler) desiredUserData(ctx context.Context, obj *computev1alpha1.EC2Instance) (string, error) {
	ref, ok := userDataRefOf(obj)
	if !ok {
		return obj.Spec.UserData, nil
	}
	// The metadata informer says which version is current without reading content.
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(string(ref.kind)))
	if err := r.Get(ctx, types.NamespacedName{Namespace: ref.namespace, Name: ref.name}, meta); err != nil {
		return "", userDataError(ref, err)
	}
	r.userData.mu.Lock()
	e, cached := r.userData.entries[ref]
	r.userData.mu.Unlock()
	if cached && e.resourceVersion == meta.ResourceVersion {
		return e.content, nil
	}
	raw, version, err := r.readUserDataSource(ctx, ref)
	if err != nil {
		return "", err
	}
	content, err := decodeUserData(ref, raw)
	if err != nil {
		return "", err
	}
	r.userData.mu.Lock()
	if r.userData.entries == nil {
		r.userData.entries = map[userDataRef]userDataEntry{}
	}
	r.userData.entries[ref] = userDataEntry{resourceVersion: version, content: content}
	r.userData.mu.Unlock()
	return content, nil
}

// readUserDataSource reads the key's value from the API server (not from a cache).
func (r *EC2InstanceReconciler) readUserDataSource(ctx context.Context, ref userDataRef) ([]byte, string, error) {
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
	key := types.NamespacedName{Namespace: ref.namespace, Name: ref.name}
	switch ref.kind {
	case sourceSecret:
		secret := &corev1.Secret{}
		if err := reader.Get(ctx, key, secret); err != nil {
			return nil, "", userDataError(ref, err)
		}
		v, ok := secret.Data[ref.key]
		if !ok {
			return nil, "", userDataError(ref, nil)
		}
		return v, secret.ResourceVersion, nil
	default:
		cm := &corev1.ConfigMap{}
		if err := reader.Get(ctx, key, cm); err != nil {
			return nil, "", userDataError(ref, err)
		}
		if v, ok := cm.Data[ref.key]; ok {
			return []byte(v), cm.ResourceVersion, nil
		}
		if v, ok := cm.BinaryData[ref.key]; ok {
			return v, cm.ResourceVersion, nil
		}
		return nil, "", userDataError(ref, nil)
	}
}

// decodeUserData applies the base64 flag and EC2's size limit.
func decodeUserData(ref userDataRef, raw []byte) (string, error) {
	data := raw
	if ref.base64 {
		decoded, err := base64.StdEncoding.DecodeString(string(raw))
		if err != nil {
			return "", &ec2.Error{Kind: ec2.KindInvalidInput, Code: "InvalidUserData.Malformed",
				Message: fmt.Sprintf("the value of %s is not valid base64 (userDataFrom.base64 is true)", ref)}
		}
		data = decoded
	}
	if len(data) > maxUserDataBytes {
		return "", &ec2.Error{Kind: ec2.KindInvalidInput, Code: "InvalidParameterValue",
			Message: fmt.Sprintf("the user data in %s is %d bytes; EC2 allows %d", ref, len(data), maxUserDataBytes)}
	}
	return string(data), nil
}

// codeUserDataNotFound marks a userDataFrom whose object or key is missing.
const codeUserDataNotFound = "UserDataNotFound"

// userDataError explains why the referenced value cannot be read: missing, or not
// readable by the operator (RBAC). err nil means the key is missing.
func userDataError(ref userDataRef, err error) error {
	switch {
	case err == nil:
		return &ec2.Error{Kind: ec2.KindInvalidInput, Code: codeUserDataNotFound,
			Message: fmt.Sprintf("%s %s/%s has no key %s", ref.kind, ref.namespace, ref.name, ref.key)}
	case apierrors.IsNotFound(err):
		return &ec2.Error{Kind: ec2.KindInvalidInput, Code: codeUserDataNotFound,
			Message: fmt.Sprintf("%s %s/%s does not exist", ref.kind, ref.namespace, ref.name)}
	case apierrors.IsForbidden(err):
		return &ec2.Error{Kind: ec2.KindInvalidInput, Code: codeUserDataNotFound,
			Message: fmt.Sprintf("the operator may not read %s %s/%s: %v", ref.kind, ref.namespace, ref.name, err)}
	default:
		return fmt.Errorf("reading %s: %w", ref, err)
	}
}

// objectsUsing maps a Secret or ConfigMap to the EC2Instances whose userDataFrom
// names it, and makes their next pass read the instance's user data again (the
// attribute cache would otherwise hide the difference for up to an hour).
func (r *EC2InstanceReconciler) objectsUsing(kind userDataSourceKind) func(context.Context, client.Object) []reconcile.Request {
	index := userDataSecretIndex
	if kind == sourceConfigMap {
		index = userDataConfigMapIndex
	}
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		list := &computev1alpha1.EC2InstanceList{}
		if err := r.List(ctx, list, client.InNamespace(o.GetNamespace()), client.MatchingFields{index: o.GetName()}); err != nil {
			return nil
		}
		out := make([]reconcile.Request, 0, len(list.Items))
		for _, obj := range list.Items {
			r.forgetAttributes(obj.UID)
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.Namespace, Name: obj.Name}})
		}
		return out
	}
}

// indexUserDataSources registers the field indexes objectsUsing queries.
func indexUserDataSources(ctx context.Context, indexer client.FieldIndexer) error {
	byKind := map[string]func(*computev1alpha1.UserDataSource) *computev1alpha1.KeySelector{
		userDataSecretIndex:    func(u *computev1alpha1.UserDataSource) *computev1alpha1.KeySelector { return u.SecretKeyRef },
		userDataConfigMapIndex: func(u *computev1alpha1.UserDataSource) *computev1alpha1.KeySelector { return u.ConfigMapKeyRef },
	}
	for index, selector := range byKind {
		if err := indexer.IndexField(ctx, &computev1alpha1.EC2Instance{}, index, func(o client.Object) []string {
			from := o.(*computev1alpha1.EC2Instance).Spec.UserDataFrom
			if from == nil {
				return nil
			}
			if ks := selector(from); ks != nil {
				return []string{ks.Name}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}
