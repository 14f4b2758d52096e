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
	"encoding/base64"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/grants"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// maxUserDataBytes is EC2's limit on raw user data (16 KB, before base64 encoding).
const maxUserDataBytes = 16384

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

// refusedSecretTypes are Secrets userDataFrom never reads: their values are
// Kubernetes credentials (a ServiceAccount's token, a bootstrap token), and an
// instance is no place for them.
var refusedSecretTypes = map[corev1.SecretType]bool{
	corev1.SecretTypeServiceAccountToken: true,
	corev1.SecretTypeBootstrapToken:      true,
}

// desiredUserData returns the user data the spec asks for: userData, or the value
// userDataFrom names, read from the API server on every call (no value is cached; the
// watch of inputs_sourcewatch.go keeps only versions). It is called at launch and on each
// pass that has the instance's user data to compare with.
// It never logs the value; errors name the source, not the content.
func (r *EC2InstanceReconciler) desiredUserData(ctx context.Context, obj *computev1alpha1.EC2Instance) (string, error) {
	ref, ok := userDataRefOf(obj)
	if !ok {
		return obj.Spec.UserData, nil
	}
	if ref.kind == sourceSecret && r.Identity.InOperatorNamespace(ref.namespace) {
		return "", pass.Refusal(computev1alpha1.ReasonUserDataSourceRefused, "", codeUserDataSourceRefused,
			fmt.Sprintf("Secret %s/%s is in the operator's own namespace, where its credentials live; user data is never read from a Secret there (use a ConfigMap, or a namespace of your own)", ref.namespace, ref.name))
	}
	raw, err := r.readUserDataSource(ctx, ref)
	if err != nil {
		return "", err
	}
	return decodeUserData(ref, raw)
}

// readUserDataSource reads the key's value from the API server (not from a cache).
func (r *EC2InstanceReconciler) readUserDataSource(ctx context.Context, ref userDataRef) ([]byte, error) {
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
	key := types.NamespacedName{Namespace: ref.namespace, Name: ref.name}
	switch ref.kind {
	case sourceSecret:
		secret := &corev1.Secret{}
		if err := reader.Get(ctx, key, secret); err != nil {
			return nil, r.userDataError(ref, err)
		}
		if refusedSecretTypes[secret.Type] {
			return nil, pass.Refusal(computev1alpha1.ReasonUserDataSourceRefused, "", codeUserDataSourceRefused,
				fmt.Sprintf("Secret %s/%s is of type %s; user data is never read from Kubernetes credentials", ref.namespace, ref.name, secret.Type))
		}
		v, ok := secret.Data[ref.key]
		if !ok {
			return nil, r.userDataError(ref, nil)
		}
		return v, nil
	default:
		cm := &corev1.ConfigMap{}
		if err := reader.Get(ctx, key, cm); err != nil {
			return nil, r.userDataError(ref, err)
		}
		if v, ok := cm.Data[ref.key]; ok {
			return []byte(v), nil
		}
		if v, ok := cm.BinaryData[ref.key]; ok {
			return v, nil
		}
		return nil, r.userDataError(ref, nil)
	}
}

// decodeUserData applies the base64 flag and EC2's size limit.
func decodeUserData(ref userDataRef, raw []byte) (string, error) {
	data := raw
	if ref.base64 {
		decoded, err := base64.StdEncoding.DecodeString(string(raw))
		if err != nil {
			return "", &awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidUserData.Malformed",
				Message: fmt.Sprintf("the value of %s is not valid base64 (userDataFrom.base64 is true)", ref)}
		}
		data = decoded
	}
	if len(data) > maxUserDataBytes {
		return "", &awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidParameterValue",
			Message: fmt.Sprintf("the user data in %s is %d bytes; EC2 allows %d", ref, len(data), maxUserDataBytes)}
	}
	return string(data), nil
}

// Codes of the user data refusals, shown with their messages.
const (
	// codeUserDataNotFound marks a userDataFrom whose object or key is missing.
	codeUserDataNotFound = "UserDataNotFound"
	// codeUserDataNotGranted marks a source the namespace has not let the operator read.
	codeUserDataNotGranted = "UserDataNotGranted"
	// codeUserDataSourceRefused marks a source the operator never reads.
	codeUserDataSourceRefused = "UserDataSourceRefused"
)

// userDataError explains why the referenced value cannot be read: missing, or not
// granted to the operator (RBAC). err nil means the key is missing.
func (r *EC2InstanceReconciler) userDataError(ref userDataRef, err error) error {
	switch {
	case err == nil:
		return pass.Refusal(computev1alpha1.ReasonUserDataNotFound, "", codeUserDataNotFound,
			fmt.Sprintf("%s %s/%s has no key %s", ref.kind, ref.namespace, ref.name, ref.key))
	case apierrors.IsNotFound(err):
		return pass.Refusal(computev1alpha1.ReasonUserDataNotFound, "", codeUserDataNotFound,
			fmt.Sprintf("%s %s/%s does not exist", ref.kind, ref.namespace, ref.name))
	case apierrors.IsForbidden(err):
		return pass.Refusal(computev1alpha1.ReasonUserDataNotGranted, "", codeUserDataNotGranted,
			fmt.Sprintf("namespace %s has not granted the operator reading its Secrets and ConfigMaps for userDataFrom (%s %s); a namespace admin grants it with: %s",
				ref.namespace, ref.kind, ref.name, r.Identity.GrantCommand(grants.UserDataReaderRole, ref.namespace)))
	default:
		return fmt.Errorf("reading %s: %w", ref, err)
	}
}

// sourceVersion is the version of the object's userDataFrom source as the watch
// covering it (inputs_sourcewatch.go) last saw it: "" when the object has none, or no
// watch knows it (then the attribute resync is what finds an edit).
func (r *EC2InstanceReconciler) sourceVersion(obj *computev1alpha1.EC2Instance) string {
	ref, ok := userDataRefOf(obj)
	if !ok {
		return ""
	}
	if v, known := r.sources.version(ref); known {
		return ref.name + "@" + v
	}
	return ""
}
