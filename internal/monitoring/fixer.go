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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The objects the manager keeps right, in its own namespace only. The names are the
// bundle's (config/ with the ec2-operator- prefix); the RBAC below names them too.
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,verbs=create
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,resourceNames=ec2-operator-metrics-reader-token,verbs=get
// +kubebuilder:rbac:groups="",namespace=system,resources=serviceaccounts,resourceNames=ec2-operator-metrics-reader,verbs=get
// +kubebuilder:rbac:groups=monitoring.coreos.com,namespace=system,resources=servicemonitors,resourceNames=ec2-operator-controller-manager-metrics-monitor,verbs=get;update

// Objects names the monitoring objects that follow the manager's namespace.
type Objects struct {
	Namespace            string
	MetricsService       string
	ServiceMonitor       string
	TokenSecret          string
	ReaderServiceAccount string
}

// DefaultObjects are the bundle's objects in namespace.
func DefaultObjects(namespace string) Objects {
	return Objects{
		Namespace:            namespace,
		MetricsService:       "ec2-operator-controller-manager-metrics-service",
		ServiceMonitor:       "ec2-operator-controller-manager-metrics-monitor",
		TokenSecret:          "ec2-operator-metrics-reader-token",
		ReaderServiceAccount: "ec2-operator-metrics-reader",
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
}

// NeedLeaderElection says that only the leader writes.
func (f *Fixer) NeedLeaderElection() bool { return true }

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

// Fix makes one pass: the token Secret exists and the ServiceMonitor names this
// namespace's metrics Service. It does both and returns what failed.
func (f *Fixer) Fix(ctx context.Context) error {
	return errors.Join(f.ensureTokenSecret(ctx), f.fixServiceMonitor(ctx))
}

// ensureTokenSecret creates the metrics reader's token Secret when it is missing,
// once its ServiceAccount exists (before that, the token controller would delete it).
func (f *Fixer) ensureTokenSecret(ctx context.Context) error {
	key := client.ObjectKey{Namespace: f.Objects.Namespace, Name: f.Objects.TokenSecret}
	err := f.Client.Get(ctx, key, &corev1.Secret{})
	if err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	sa := &corev1.ServiceAccount{}
	if err := f.Client.Get(ctx, client.ObjectKey{Namespace: f.Objects.Namespace, Name: f.Objects.ReaderServiceAccount}, sa); err != nil {
		return fmt.Errorf("the token Secret %s is missing and its ServiceAccount cannot be read yet: %w", f.Objects.TokenSecret, err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   f.Objects.Namespace,
			Name:        f.Objects.TokenSecret,
			Labels:      map[string]string{"app.kubernetes.io/name": "ec2-operator"},
			Annotations: map[string]string{corev1.ServiceAccountNameKey: sa.Name},
		},
		Type: corev1.SecretTypeServiceAccountToken,
	}
	if err := f.Client.Create(ctx, secret); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the token Secret %s: %w", f.Objects.TokenSecret, err)
	}
	f.Log.Info("created the metrics reader's token Secret", "secret", key.String())
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
