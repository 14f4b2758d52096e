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
	"log"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The annotations and key of the real CA bundle injector (github.com/openshift/api,
// annotations).
const (
	injectCABundleAnnotation      = "service.beta.openshift.io/inject-cabundle"
	alphaInjectCABundleAnnotation = "service.alpha.openshift.io/inject-cabundle"
	injectionDataKey              = "service-ca.crt"
)

// syncConfigMap writes the CA into a ConfigMap that asks for it, and leaves it alone
// when it already holds the current CA so that the resync does not rewrite it.
func (c *controller) syncConfigMap(ctx context.Context, obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.DeletionTimestamp != nil || !c.serves(cm.Namespace) {
		return
	}
	if !strings.EqualFold(cm.Annotations[injectCABundleAnnotation], "true") &&
		!strings.EqualFold(cm.Annotations[alphaInjectCABundleAnnotation], "true") {
		return
	}
	if cm.Data[injectionDataKey] == string(c.ca.CertPEM) {
		return
	}
	u := cm.DeepCopy()
	// The real injector owns the whole data of an injected ConfigMap.
	u.Data = map[string]string{injectionDataKey: string(c.ca.CertPEM)}
	if _, err := c.cs.CoreV1().ConfigMaps(u.Namespace).Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		log.Printf("configmap %s/%s: %v", cm.Namespace, cm.Name, err)
		return
	}
	log.Printf("injected the CA bundle into configmap %s/%s", cm.Namespace, cm.Name)
}
