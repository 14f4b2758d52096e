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
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// setCredentialsMode creates or updates the cluster's CloudCredential; "absent"
// deletes it.
func setCredentialsMode(t *testing.T, mode string) {
	t.Helper()
	ctx := context.Background()
	cc := &unstructured.Unstructured{}
	cc.SetGroupVersionKind(CloudCredentialGVK)
	cc.SetName("cluster")
	err := admin.Get(ctx, client.ObjectKey{Name: "cluster"}, cc)
	if mode == "absent" {
		if err == nil {
			if err := admin.Delete(ctx, cc); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	cc.Object["spec"] = map[string]any{"credentialsMode": mode}
	if apierrors.IsNotFound(err) {
		err = admin.Create(ctx, cc)
	} else if err == nil {
		err = admin.Update(ctx, cc)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestMintModeIsUsedWhenCCOHandsOutKeys(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		mode string
		want bool
	}{{"absent", false}, {"", true}, {"Mint", true}, {"Passthrough", true}, {"Manual", false}} {
		setCredentialsMode(t, tc.mode)
		// The manager's own RBAC (generated from the markers) may read it.
		got, mode, err := MintModeAvailable(ctx, manager)
		if err != nil || got != tc.want {
			t.Errorf("credentials mode %q: MintModeAvailable = %v (%q), %v; want %v", tc.mode, got, mode, err, tc.want)
		}
	}
	setCredentialsMode(t, "absent")
}

func TestUserCredentialsInTheEnvironmentWinOverCCO(t *testing.T) {
	for _, v := range staticCredentialEnv {
		t.Setenv(v, "")
	}
	if v, ok := UserCredentialsConfigured(); ok {
		t.Fatalf("no credentials configured, but %s counts", v)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE")
	if v, ok := UserCredentialsConfigured(); !ok || v != "AWS_ACCESS_KEY_ID" {
		t.Errorf("AWS_ACCESS_KEY_ID set: %q, %v", v, ok)
	}
}

func TestAMintRequestAsksForAnAccessKeyAndTheProviderServesItOnceWritten(t *testing.T) {
	t.Cleanup(func() { deleteSecret(t) })
	ctx := context.Background()
	t.Cleanup(func() { deleteRequest(t) })
	opts, err := EnsureRequest(ctx, manager, Options{Namespace: managerNS, ServiceAccountName: managerSA})
	if err != nil {
		t.Fatal(err)
	}
	req := &unstructured.Unstructured{}
	req.SetGroupVersionKind(CredentialsRequestGVK)
	if err := admin.Get(ctx, client.ObjectKey{Namespace: DefaultRequestNamespace, Name: DefaultRequestName}, req); err != nil {
		t.Fatal(err)
	}
	if arn, found, _ := unstructured.NestedString(req.Object, "spec", "providerSpec", "stsIAMRoleARN"); found {
		t.Errorf("a mint request carries a role ARN %q", arn)
	}
	if _, found, _ := unstructured.NestedString(req.Object, "spec", "cloudTokenPath"); found {
		t.Error("a mint request names a token path")
	}
	if entries, _, _ := unstructured.NestedSlice(req.Object, "spec", "providerSpec", "statementEntries"); len(entries) == 0 {
		t.Error("a mint request lists no IAM permissions")
	}

	p := &SecretProvider{Client: manager, Namespace: managerNS, Name: opts.SecretName, RefreshAfter: time.Minute}
	if err := p.Ready(); err == nil {
		t.Error("ready before anything was read")
	}
	if _, err := p.Retrieve(ctx); err == nil || !strings.Contains(err.Error(), "waiting for the Cloud Credential Operator") {
		t.Errorf("before CCO wrote the Secret: %v", err)
	}
	if err := p.Ready(); err == nil {
		t.Error("ready without a Secret")
	}

	// CCO writes the Secret (mint mode's keys); the provider serves them, and a
	// rotated key on the next retrieval. The SDK's cache asks again when they expire.
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: opts.SecretName, Namespace: managerNS},
		Data:       map[string][]byte{AccessKeyIDKey: []byte("AKIAFIRST"), SecretAccessKeyKey: []byte("first-secret")},
	}
	if err := admin.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	cache := aws.NewCredentialsCache(p)
	creds, err := cache.Retrieve(ctx)
	if err != nil || creds.AccessKeyID != "AKIAFIRST" || creds.SecretAccessKey != "first-secret" || !creds.CanExpire {
		t.Fatalf("after CCO wrote the Secret: %+v, %v", creds, err)
	}
	if err := p.Ready(); err != nil {
		t.Errorf("not ready after a key was read: %v", err)
	}
	s.Data[AccessKeyIDKey] = []byte("AKIASECOND")
	if err := admin.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	if creds, err := p.Retrieve(ctx); err != nil || creds.AccessKeyID != "AKIASECOND" {
		t.Errorf("after rotation: %+v, %v", creds, err)
	}

	// Watch keeps Ready in step with the Secret: after it is deleted, the next read
	// (every interval until a key is found) reports the wait again.
	deleteSecret(t)
	watchCtx, cancel := context.WithCancel(ctx)
	reports := make(chan error, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Watch(watchCtx, 20*time.Millisecond, func(err error) {
			select {
			case reports <- err:
			default:
			}
		})
	}()
	if err := <-reports; err == nil {
		t.Error("Watch found a key in a deleted Secret")
	}
	if p.Ready() == nil {
		t.Error("ready although the Secret is gone")
	}
	cancel()
	<-done
}

func TestTokenAuthAWSWaitsWithoutBlockingAndThenUsesWebIdentity(t *testing.T) {
	t.Cleanup(func() { deleteSecret(t) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := testOptions(t)
	opts.Timeout = 300 * time.Millisecond // one Setup gives up quickly; Start runs it again
	reports := make(chan error, 100)
	p := &WebIdentityProvider{Client: manager, Options: opts, Region: "us-east-1", Retry: 50 * time.Millisecond,
		Report: func(err error) {
			select {
			case reports <- err:
			default:
			}
		}}
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx) }()

	// Before CCO answers: not ready, and no credentials, but no exit either.
	if err := <-reports; err == nil {
		t.Fatal("ready before CCO wrote the profile")
	}
	if p.Ready() == nil {
		t.Error("Ready before CCO wrote the profile")
	}
	if _, err := p.Retrieve(ctx); err == nil {
		t.Error("credentials before CCO wrote the profile")
	}
	select {
	case err := <-done:
		t.Fatalf("Start returned before the profile was there: %v", err)
	default:
	}

	simulateCCO(t, ctx, opts.RequestName, profile(roleARN))
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Start did not finish after CCO wrote the profile")
	}
	if err := p.Ready(); err != nil {
		t.Errorf("not ready after CCO wrote the profile: %v", err)
	}
	cache, ok := p.creds.(*aws.CredentialsCache)
	if !ok || !cache.IsCredentialsProvider(&stscreds.WebIdentityRoleProvider{}) {
		t.Errorf("the credentials are not the role's web identity (%T)", p.creds)
	}
}
