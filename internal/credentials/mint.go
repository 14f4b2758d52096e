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
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// In mint and passthrough mode the Cloud Credential Operator answers a
// CredentialsRequest without a role ARN with an access key in a Secret: minted for
// this request (mint) or the cluster's own (passthrough). The manager reads the
// cluster's credentials mode from the CloudCredential named cluster.
//
// +kubebuilder:rbac:groups=operator.openshift.io,resources=cloudcredentials,resourceNames=cluster,verbs=get

// CloudCredentialGVK is the cluster's Cloud Credential Operator configuration.
var CloudCredentialGVK = schema.GroupVersionKind{Group: "operator.openshift.io", Version: "v1", Kind: "CloudCredential"}

// Keys of the Secret CCO writes in mint and passthrough mode.
const (
	AccessKeyIDKey     = "aws_access_key_id"
	SecretAccessKeyKey = "aws_secret_access_key"
)

// staticCredentialEnv are the variables by which a user gives the SDK credentials of
// their own (a Subscription's config.env, a mounted profile); they win over CCO.
var staticCredentialEnv = []string{
	"AWS_ACCESS_KEY_ID", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE",
	"AWS_CONFIG_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
}

// UserCredentialsConfigured reports whether the environment gives the SDK
// credentials of its own, and by which variable.
func UserCredentialsConfigured() (string, bool) {
	for _, v := range staticCredentialEnv {
		if strings.TrimSpace(os.Getenv(v)) != "" {
			return v, true
		}
	}
	return "", false
}

// MintModeAvailable reports whether the cluster's Cloud Credential Operator hands out
// access keys for a CredentialsRequest (credentialsMode Mint, Passthrough, or empty,
// which lets CCO pick one of them), and the mode it found. Manual mode, or a cluster
// without CCO, answers false.
func MintModeAvailable(ctx context.Context, c client.Client) (bool, string, error) {
	cc := &unstructured.Unstructured{}
	cc.SetGroupVersionKind(CloudCredentialGVK)
	err := c.Get(ctx, client.ObjectKey{Name: "cluster"}, cc)
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return false, "", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("reading the cluster's CloudCredential: %w", err)
	}
	mode, _, _ := unstructured.NestedString(cc.Object, "spec", "credentialsMode")
	switch mode {
	case "", "Mint", "Passthrough":
		return true, mode, nil
	default:
		return false, mode, nil
	}
}

// SecretProvider is an aws.CredentialsProvider that reads the access key CCO writes
// into the manager's namespace. It reads the Secret on every retrieval; the SDK's
// credentials cache asks again after RefreshAfter, so a rotated key is picked up.
// Until the Secret has a key it fails, and Ready says why.
type SecretProvider struct {
	// Client reads the Secret directly from the API server.
	Client    client.Client
	Namespace string
	Name      string
	// RefreshAfter is how long one read is used (default 5 minutes).
	RefreshAfter time.Duration

	mu      sync.Mutex
	lastErr error
	checked bool
}

// Retrieve returns the access key from the Secret.
func (p *SecretProvider) Retrieve(ctx context.Context) (aws.Credentials, error) {
	creds, err := p.read(ctx)
	p.mu.Lock()
	p.lastErr, p.checked = err, true
	p.mu.Unlock()
	return creds, err
}

func (p *SecretProvider) read(ctx context.Context) (aws.Credentials, error) {
	var s corev1.Secret
	if err := p.Client.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: p.Name}, &s); err != nil {
		if apierrors.IsNotFound(err) {
			return aws.Credentials{}, fmt.Errorf("waiting for the Cloud Credential Operator to write Secret %s/%s", p.Namespace, p.Name)
		}
		return aws.Credentials{}, fmt.Errorf("reading Secret %s/%s: %w", p.Namespace, p.Name, err)
	}
	id, secret := strings.TrimSpace(string(s.Data[AccessKeyIDKey])), strings.TrimSpace(string(s.Data[SecretAccessKeyKey]))
	if id == "" || secret == "" {
		return aws.Credentials{}, fmt.Errorf("Secret %s/%s has no %s and %s yet", p.Namespace, p.Name, AccessKeyIDKey, SecretAccessKeyKey)
	}
	refresh := p.RefreshAfter
	if refresh <= 0 {
		refresh = 5 * time.Minute
	}
	return aws.Credentials{
		AccessKeyID: id, SecretAccessKey: secret,
		Source:    "CloudCredentialOperator:" + p.Namespace + "/" + p.Name,
		CanExpire: true, Expires: time.Now().Add(refresh),
	}, nil
}

// Ready returns nil once the last read found a key, or why not.
func (p *SecretProvider) Ready() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.checked {
		return errors.New("the AWS credentials Secret has not been read yet")
	}
	return p.lastErr
}

// Watch reads the Secret until it has a key (every interval), then every
// RefreshAfter, so that Ready follows the Secret; report is told each result. It
// returns when ctx ends; a manager runs it as a Runnable on every replica.
func (p *SecretProvider) Watch(ctx context.Context, interval time.Duration, report func(error)) {
	for {
		_, err := p.Retrieve(ctx)
		if report != nil {
			report(err)
		}
		wait := interval
		if err == nil {
			wait = p.RefreshAfter
			if wait <= 0 {
				wait = 5 * time.Minute
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// Watcher runs a SecretProvider's Watch as a manager Runnable on every replica (each
// needs credentials, not only the leader).
type Watcher struct {
	Provider *SecretProvider
	// Interval is how often a missing Secret is looked for.
	Interval time.Duration
	// Report is told the result of every read.
	Report func(error)
}

// Start watches until ctx ends.
func (w *Watcher) Start(ctx context.Context) error {
	w.Provider.Watch(ctx, w.Interval, w.Report)
	return nil
}

// NeedLeaderElection is false: every replica reads its credentials.
func (w *Watcher) NeedLeaderElection() bool { return false }
