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

package images

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Push uploads idx to repository (such as quay.io/ec2-operator/ec2-operator) by its
// digest and returns the digest reference. Credentials come from keychain; the default
// keychain reads what `docker login` and `podman login` leave.
func Push(ctx context.Context, idx v1.ImageIndex, repository string, keychain authn.Keychain) (name.Digest, error) {
	digest, err := idx.Digest()
	if err != nil {
		return name.Digest{}, err
	}
	ref, err := name.NewDigest(repository + "@" + digest.String())
	if err != nil {
		return name.Digest{}, fmt.Errorf("image repository %q: %w", repository, err)
	}
	if err := remote.WriteIndex(ref, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(keychain)); err != nil {
		return name.Digest{}, fmt.Errorf("pushing %s: %w", ref, err)
	}
	return ref, nil
}

// Tag points tag (such as v0.1.0) in the repository of ref at the index ref names.
func Tag(ctx context.Context, ref name.Digest, tag string, idx v1.ImageIndex, keychain authn.Keychain) error {
	t := ref.Context().Tag(tag)
	if err := remote.Tag(t, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(keychain)); err != nil {
		return fmt.Errorf("tagging %s: %w", t, err)
	}
	return nil
}

// Pull fetches the image index a digest reference names.
func Pull(ctx context.Context, ref name.Digest, keychain authn.Keychain) (v1.ImageIndex, error) {
	idx, err := remote.Index(ref, remote.WithContext(ctx), remote.WithAuthFromKeychain(keychain))
	if err != nil {
		return nil, fmt.Errorf("pulling %s: %w", ref, err)
	}
	return idx, nil
}

// PushReferrers uploads artifacts that refer to an image already pushed (its SBOMs) to
// repository, each by its digest. A registry with the OCI 1.1 referrers API lists
// them among the image's referrers; for one without, go-containerregistry keeps the
// referrers tag schema's index (sha256-<digest>) instead, as the spec asks.
func PushReferrers(ctx context.Context, referrers []v1.Image, repository string, keychain authn.Keychain) error {
	for _, r := range referrers {
		digest, err := r.Digest()
		if err != nil {
			return err
		}
		ref, err := name.NewDigest(repository + "@" + digest.String())
		if err != nil {
			return fmt.Errorf("image repository %q: %w", repository, err)
		}
		if err := remote.Write(ref, r, remote.WithContext(ctx), remote.WithAuthFromKeychain(keychain)); err != nil {
			return fmt.Errorf("pushing %s: %w", ref, err)
		}
	}
	return nil
}
