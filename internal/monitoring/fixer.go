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

package monitoring

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The objects the manager keeps right, in its own namespace only. The names are the
// bundle's (config/ with the ec2-operator- prefix); the Role that allows it,
// config/rbac/own_namespace_role.yaml, names them too and is bound only in the
// manager's namespace, in every install mode (test/olm checks both).

// Objects names the monitoring objects that follow the manager's namespace.
type Objects struct {
	Namespace      string
	MetricsService string
	ServiceMonitor string
	TokenSecret    string
	// CertSecret is where OpenShift's service CA writes the metrics serving
	// certificate (the metrics Service's serving-cert-secret-name annotation).
	CertSecret string
}

// DefaultObjects are the bundle's objects in namespace.
func DefaultObjects(namespace string) Objects {
	return Objects{
		Namespace:      namespace,
		MetricsService: "ec2-operator-controller-manager-metrics-service",
		ServiceMonitor: "ec2-operator-controller-manager-metrics-monitor",
		TokenSecret:    "ec2-operator-metrics-token",
		CertSecret:     "ec2-operator-metrics-cert",
	}
}

// ServerName is the name the metrics serving certificate carries.
func (o Objects) ServerName() string {
	return fmt.Sprintf("%s.%s.svc", o.MetricsService, o.Namespace)
}

// serviceMonitorGVK is prometheus-operator's ServiceMonitor, read as unstructured so
// that clusters without prometheus-operator need none of its types.
var serviceMonitorGVK = schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: "ServiceMonitor"}

// Fixer keeps the monitoring objects right; it is a manager Runnable.
type Fixer struct {
	// Client reads and writes directly (not through the manager's cache, which would
	// watch Secrets and need RBAC to list them).
	Client  client.Client
	Objects Objects
	// Interval is how often the objects are checked again after the first pass (the
	// token controller may delete the Secret later); Retry is how soon a pass that
	// could not finish (the ServiceAccount is not there yet) is tried again.
	Interval, Retry time.Duration
	Log             logr.Logger
	// Token receives the scrape token the Secret holds, for the metrics server's
	// filter; nil when the metrics endpoint does not check it.
	Token *ScrapeToken
}

// NeedLeaderElection is false: every replica serves /metrics and must know the scrape
// token, and the writes (the token filled in once, the serverName) are optimistic
// updates of the same values, which replicas cannot get wrong together.
func (f *Fixer) NeedLeaderElection() bool { return false }

// Start checks the objects now and then every Interval until ctx ends.
func (f *Fixer) Start(ctx context.Context) error {
	for {
		wait := f.Interval
		if err := f.Fix(ctx); err != nil {
			f.Log.Info("monitoring objects are not right yet; trying again", "error", err.Error(), "after", f.Retry)
			wait = f.Retry
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// Fix makes one pass: the token Secret holds a scrape token, and the ServiceMonitor
// names this namespace's metrics Service. It does both and returns what failed.
func (f *Fixer) Fix(ctx context.Context) error {
	return errors.Join(f.ensureToken(ctx), f.fixServiceMonitor(ctx))
}

// ensureToken fills the token Secret, which the bundle ships empty, with a random
// scrape token when it has none, and hands the token to the metrics filter. The
// operator may not create Secrets: a Secret that is missing (deleted by hand) is
// reported, and comes back when the bundle or config/openshift is applied again.
func (f *Fixer) ensureToken(ctx context.Context) error {
	key := client.ObjectKey{Namespace: f.Objects.Namespace, Name: f.Objects.TokenSecret}
	secret := &corev1.Secret{}
	if err := f.Client.Get(ctx, key, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("the metrics token Secret %s is missing, so the ServiceMonitor cannot scrape; apply it again from the bundle (or config/openshift)", key)
		}
		return err
	}
	token := string(secret.Data[TokenKey])
	if token == "" {
		v, err := newTokenValue()
		if err != nil {
			return err
		}
		if secret.Data == nil {
			secret.Data = map[string][]byte{}
		}
		secret.Data[TokenKey] = []byte(v)
		// Update with the resourceVersion read: another replica that filled it first
		// wins, and this one reads its token on the next pass.
		if err := f.Client.Update(ctx, secret); err != nil {
			return fmt.Errorf("writing a scrape token into %s: %w", key, err)
		}
		f.Log.Info("wrote a new scrape token into the metrics token Secret", "secret", key.String())
		token = v
	}
	if f.Token != nil {
		f.Token.set(token)
	}
	return nil
}

// fixServiceMonitor sets every endpoint's tlsConfig.serverName to this namespace's
// metrics Service. A cluster without prometheus-operator, or without the
// ServiceMonitor, has nothing to fix.
func (f *Fixer) fixServiceMonitor(ctx context.Context) error {
	sm := &unstructured.Unstructured{}
	sm.SetGroupVersionKind(serviceMonitorGVK)
	err := f.Client.Get(ctx, client.ObjectKey{Namespace: f.Objects.Namespace, Name: f.Objects.ServiceMonitor}, sm)
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	endpoints, _, err := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if err != nil {
		return err
	}
	want := f.Objects.ServerName()
	changed := false
	for i, e := range endpoints {
		ep, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if got, _, _ := unstructured.NestedString(ep, "tlsConfig", "serverName"); got != want {
			if err := unstructured.SetNestedField(ep, want, "tlsConfig", "serverName"); err != nil {
				return err
			}
			endpoints[i] = ep
			changed = true
		}
	}
	if !changed {
		return nil
	}
	if err := unstructured.SetNestedSlice(sm.Object, endpoints, "spec", "endpoints"); err != nil {
		return err
	}
	// Update with the resourceVersion read: a concurrent change is read again next pass.
	if err := f.Client.Update(ctx, sm); err != nil {
		return fmt.Errorf("setting the ServiceMonitor's serverName to %s: %w", want, err)
	}
	f.Log.Info("pointed the ServiceMonitor at this namespace's metrics Service", "serviceMonitor", sm.GetName(), "serverName", want)
	return nil
}
