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

package credentials

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ec2-operator/ec2-operator/internal/clusterid"
)

// The manager creates its CredentialsRequest (a cluster rule, because CCO's requests
// live in openshift-cloud-credential-operator while the manager runs elsewhere), and
// reads and updates only that one request, by name. Kubernetes cannot limit create to
// a name (RBAC does not see the request body), so create is unnamed; OpenShift's
// documented way for an OLM operator to obtain AWS credentials is exactly this
// request, which OLM cannot ship in a bundle. The one Secret CCO writes for the
// manager, in its own namespace, is read under the Role of
// config/rbac/own-namespace, never a cluster rule.
//
// +kubebuilder:rbac:groups=cloudcredential.openshift.io,resources=credentialsrequests,verbs=create
// +kubebuilder:rbac:groups=cloudcredential.openshift.io,resources=credentialsrequests,resourceNames=ec2-operator,verbs=get;update

// CredentialsRequestGVK is the Cloud Credential Operator's request type.
var CredentialsRequestGVK = schema.GroupVersionKind{Group: "cloudcredential.openshift.io", Version: "v1", Kind: "CredentialsRequest"}

const (
	// RoleARNEnv is the variable OLM sets from the role ARN the administrator enters.
	RoleARNEnv = "ROLEARN"
	// NamespaceEnv is the manager's namespace (downward API).
	NamespaceEnv = "POD_NAMESPACE"
	// ServiceAccountEnv is the manager's service account (downward API).
	ServiceAccountEnv = "SERVICE_ACCOUNT_NAME"

	// DefaultRequestNamespace is where the Cloud Credential Operator watches requests.
	DefaultRequestNamespace = "openshift-cloud-credential-operator"
	// DefaultRequestName names the manager's CredentialsRequest; the RBAC marker above
	// grants get and update on this name only. OLM lets one install of an operator
	// own its APIs in a cluster, so one name serves.
	DefaultRequestName = "ec2-operator"
	// DefaultSecretName is the Secret CCO writes into the manager's namespace; the
	// manager may get this name only (config/rbac/own-namespace).
	DefaultSecretName = "ec2-operator-aws-credentials"
	// DefaultServiceAccount is the manager's service account as OLM and kustomize name it.
	DefaultServiceAccount = "ec2-operator-controller-manager"
	// CloudTokenPath is where the Deployment mounts the projected service account token
	// with audience "openshift"; CCO writes it into the profile as web_identity_token_file.
	CloudTokenPath = "/var/run/secrets/openshift/serviceaccount/token"
	// SecretKey is the key of the profile in CCO's Secret.
	SecretKey = "credentials"
)

var roleARNPattern = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]{1,512}$`)

// Options configures Setup and EnsureRequest; Dir, PollInterval and Timeout are
// Setup's alone.
type Options struct {
	// RoleARN is the IAM role to assume with the service account token. Empty asks
	// for an access key instead (mint or passthrough mode, see EnsureRequest).
	RoleARN string
	// Namespace is the manager's namespace; CCO writes the Secret there.
	Namespace string
	// ServiceAccountName is the manager's service account, recorded in the request.
	ServiceAccountName string
	// RequestNamespace is where the CredentialsRequest is created.
	RequestNamespace string
	// RequestName names the CredentialsRequest; it defaults to DefaultRequestName, the
	// one name the manager's RBAC lets it read and update.
	RequestName string
	// SecretName is the Secret CCO is asked to write.
	SecretName string
	// Dir is the writable directory for the profile file (default: $TMPDIR/ec2-operator-aws).
	Dir string
	// PollInterval is how often Setup looks for the Secret (default 2s).
	PollInterval time.Duration
	// Timeout bounds the wait for the Secret (default 1m, inside the Deployment's
	// liveness window, since the probes are not served yet; the manager then exits and
	// the restarted pod asks again).
	Timeout time.Duration
	// EventsQueueURL, when set (--events-queue-url), adds reading that queue's EC2
	// events to the permissions requested.
	EventsQueueURL string
	// AccountRoleARNs, when set (ACCOUNT_ROLE_ARNS), adds assuming those roles (the
	// roles of AWSAccounts) to the permissions requested.
	AccountRoleARNs []string
	// ClusterID is the value of the cluster tag the policy's conditions require
	// (--cluster-id); empty means the kube-system Namespace's UID, read when the
	// request is made.
	ClusterID string
}

// OptionsFromEnv returns the options for the manager's environment and whether
// token-auth-aws is requested (ROLEARN set). Without ROLEARN the caller keeps the SDK's
// default credential chain.
func OptionsFromEnv() (Options, bool) {
	roleARN := strings.TrimSpace(os.Getenv(RoleARNEnv))
	if roleARN == "" {
		return Options{}, false
	}
	return Options{
		RoleARN:            roleARN,
		Namespace:          os.Getenv(NamespaceEnv),
		ServiceAccountName: os.Getenv(ServiceAccountEnv),
	}, true
}

// Completed returns the options with their defaults filled in, or why they are not
// usable (an ARN that is not an IAM role's, no namespace), so that a caller can refuse
// bad input before it starts waiting for CCO.
func (o Options) Completed() (Options, error) {
	err := o.complete()
	return o, err
}

func (o *Options) complete() error {
	if o.RoleARN != "" && !roleARNPattern.MatchString(o.RoleARN) {
		return fmt.Errorf("%s=%q is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)", RoleARNEnv, o.RoleARN)
	}
	if o.Namespace == "" {
		return fmt.Errorf("%s is empty: the manager's namespace is needed for the credentials Secret", NamespaceEnv)
	}
	if o.ServiceAccountName == "" {
		o.ServiceAccountName = DefaultServiceAccount
	}
	if o.RequestNamespace == "" {
		o.RequestNamespace = DefaultRequestNamespace
	}
	if o.RequestName == "" {
		o.RequestName = DefaultRequestName
	}
	if o.SecretName == "" {
		o.SecretName = DefaultSecretName
	}
	if o.Dir == "" {
		o.Dir = filepath.Join(os.TempDir(), "ec2-operator-aws")
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	return nil
}

// Setup ensures the CredentialsRequest exists and matches opts, waits for the Secret
// the Cloud Credential Operator writes, stores its profile in a file and returns the
// file's path. c must read directly from the API server (not a cache that has not
// started yet).
func Setup(ctx context.Context, c client.Client, opts Options) (string, error) {
	if opts.RoleARN == "" {
		return "", fmt.Errorf("%s is empty: Setup is for STS mode; use EnsureRequest and SecretProvider otherwise", RoleARNEnv)
	}
	if err := opts.complete(); err != nil {
		return "", err
	}
	log := logf.FromContext(ctx).WithValues("credentialsRequest", opts.RequestNamespace+"/"+opts.RequestName,
		"secret", opts.Namespace+"/"+opts.SecretName)
	if err := ensureRequest(ctx, c, opts); err != nil {
		return "", err
	}
	log.Info("waiting for the Cloud Credential Operator to write the AWS credentials Secret")
	profile, err := waitForProfile(ctx, c, opts, log)
	if err != nil {
		return "", err
	}
	path, err := writeProfile(opts.Dir, profile)
	if err != nil {
		return "", err
	}
	log.Info("AWS web identity credentials ready", "file", path)
	return path, nil
}

// desiredRequest builds the CredentialsRequest for opts.
func desiredRequest(opts Options) *unstructured.Unstructured {
	policy := Policy(opts.ClusterID)
	if st, ok := EventsQueueStatement(opts.EventsQueueURL); ok {
		policy = append(policy, st)
	}
	if st, ok := AssumeRoleStatement(opts.AccountRoleARNs); ok {
		policy = append(policy, st)
	}
	statements := statementEntries(policy)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(CredentialsRequestGVK)
	u.SetNamespace(opts.RequestNamespace)
	u.SetName(opts.RequestName)
	u.SetLabels(map[string]string{"app.kubernetes.io/name": "ec2-operator", "app.kubernetes.io/managed-by": "ec2-operator"})
	providerSpec := map[string]any{
		"apiVersion":       "cloudcredential.openshift.io/v1",
		"kind":             "AWSProviderSpec",
		"statementEntries": statements,
	}
	spec := map[string]any{
		"secretRef":           map[string]any{"name": opts.SecretName, "namespace": opts.Namespace},
		"providerSpec":        providerSpec,
		"serviceAccountNames": []any{opts.ServiceAccountName},
	}
	if opts.RoleARN != "" {
		// STS: CCO writes a web identity profile for this role and this token.
		providerSpec["stsIAMRoleARN"] = opts.RoleARN
		spec["cloudTokenPath"] = CloudTokenPath
	}
	u.Object["spec"] = spec
	return u
}

// statementEntries turns IAM statements into the statementEntries of CCO's
// AWSProviderSpec, which take one resource each: a statement with several resources
// becomes several entries.
func statementEntries(policy []Statement) []any {
	var statements []any
	for _, st := range policy {
		for _, resource := range st.Resource {
			entry := map[string]any{
				"effect":   st.Effect,
				"action":   toAny(st.Action),
				"resource": resource,
			}
			if len(st.Condition) > 0 {
				entry["policyCondition"] = policyCondition(st.Condition)
			}
			statements = append(statements, entry)
		}
	}
	return statements
}

// policyCondition copies a statement's condition into the JSON types an unstructured
// object may hold: a list of strings (several ec2:CreateAction values) must be []any
// to be copied.
func policyCondition(condition map[string]map[string]any) map[string]any {
	cond := map[string]any{}
	for op, kv := range condition {
		m := map[string]any{}
		for k, v := range kv {
			if list, ok := v.([]string); ok {
				v = toAny(list)
			}
			m[k] = v
		}
		cond[op] = m
	}
	return cond
}

// EnsureRequest creates or updates the CredentialsRequest for opts. Without a role
// ARN it asks for an access key (CCO's mint or passthrough mode), which CCO writes
// into the Secret that SecretProvider reads.
func EnsureRequest(ctx context.Context, c client.Client, opts Options) (Options, error) {
	if err := opts.complete(); err != nil {
		return opts, err
	}
	return opts, ensureRequest(ctx, c, opts)
}

// ensureRequest creates the CredentialsRequest, or updates its spec when it differs
// (for example after the administrator changed the role ARN).
func ensureRequest(ctx context.Context, c client.Client, opts Options) error {
	id, err := clusterid.Resolve(ctx, c, opts.ClusterID)
	if err != nil {
		return err
	}
	opts.ClusterID = id
	want := desiredRequest(opts)
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(CredentialsRequestGVK)
	err = c.Get(ctx, client.ObjectKeyFromObject(want), got)
	switch {
	case apierrors.IsNotFound(err):
		if err := c.Create(ctx, want); err != nil {
			return fmt.Errorf("creating CredentialsRequest %s/%s (is this an OpenShift cluster with the Cloud Credential Operator?): %w",
				want.GetNamespace(), want.GetName(), err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading CredentialsRequest %s/%s: %w", want.GetNamespace(), want.GetName(), err)
	}
	if specEqual(got.Object["spec"], want.Object["spec"]) {
		return nil
	}
	got.Object["spec"] = want.Object["spec"]
	if err := c.Update(ctx, got); err != nil {
		return fmt.Errorf("updating CredentialsRequest %s/%s: %w", want.GetNamespace(), want.GetName(), err)
	}
	return nil
}
