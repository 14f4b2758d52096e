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
	"path/filepath"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The web identity profile CCO writes in STS mode: Setup waits for it, checks that it
// is for the role asked for, and writes it where the AWS SDK reads it.

// waitForProfile polls for the Secret CCO writes until it holds the web identity
// profile of opts.RoleARN, for at most opts.Timeout, and returns the profile. Only a
// refusal to read the Secret ends the wait early: anything else may pass.
func waitForProfile(ctx context.Context, c client.Client, opts Options, log logr.Logger) ([]byte, error) {
	var profile []byte
	waitCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	err := wait.PollUntilContextCancel(waitCtx, opts.PollInterval, true, func(ctx context.Context) (bool, error) {
		var s corev1.Secret
		err := c.Get(ctx, types.NamespacedName{Namespace: opts.Namespace, Name: opts.SecretName}, &s)
		switch {
		case apierrors.IsNotFound(err):
			return false, nil
		case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
			return false, fmt.Errorf("reading Secret %s/%s: %w", opts.Namespace, opts.SecretName, err)
		case err != nil:
			// A passing API server or network error: keep waiting until the deadline.
			log.V(1).Info("reading the credentials Secret failed; retrying", "error", err.Error())
			return false, nil
		}
		profile = s.Data[SecretKey]
		if len(profile) == 0 {
			return false, nil
		}
		// After the role ARN changes, the old Secret stays until CCO rewrites it:
		// that is "not ready yet", not a reason to exit and crash-loop.
		if err := checkProfile(profile, opts.RoleARN); err != nil {
			log.V(1).Info("the credentials Secret does not match yet; waiting", "reason", err.Error())
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		if ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || waitCtx.Err() != nil) {
			detail := ""
			if len(profile) > 0 {
				detail = " matching the role ARN (" + checkProfile(profile, opts.RoleARN).Error() + ")"
			}
			return nil, fmt.Errorf("the Cloud Credential Operator did not write Secret %s/%s%s within %s; "+
				"is the cluster in STS mode, and is the role ARN right? (CredentialsRequest %s/%s): %w",
				opts.Namespace, opts.SecretName, detail, opts.Timeout, opts.RequestNamespace, opts.RequestName, err)
		}
		return nil, err
	}
	if err := checkProfile(profile, opts.RoleARN); err != nil {
		return nil, fmt.Errorf("Secret %s/%s: %w", opts.Namespace, opts.SecretName, err)
	}
	return profile, nil
}

// checkProfile verifies that CCO's profile is the web identity profile for roleARN, so
// that a Secret left from another role or from mint mode is not used silently.
func checkProfile(profile []byte, roleARN string) error {
	values := map[string]string{}
	for _, line := range strings.Split(string(profile), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok {
			values[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if values["role_arn"] != roleARN {
		return fmt.Errorf("its %q profile has role_arn %q, want %q (CCO has not caught up with a changed ROLEARN yet?)",
			SecretKey, values["role_arn"], roleARN)
	}
	if values["web_identity_token_file"] == "" {
		return fmt.Errorf("its %q profile has no web_identity_token_file", SecretKey)
	}
	return nil
}

// writeProfile writes the profile atomically with owner-only permissions.
func writeProfile(dir string, profile []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	path := filepath.Join(dir, "credentials")
	tmp, err := os.CreateTemp(dir, ".credentials-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(profile); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	return path, nil
}
