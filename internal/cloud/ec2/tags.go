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

package ec2

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// TagPrefix is the prefix of every tag key the operator itself owns. Users cannot
// override these keys through spec tags.
const TagPrefix = "ec2-operator.dev/"

// Ownership tag keys. They tie an instance to the Kubernetes object that launched it,
// so that a lost instance ID can be recovered with FindInstances.
const (
	// TagOwnerUID holds the UID of the owning Kubernetes object.
	TagOwnerUID = TagPrefix + "owner-uid"
	// TagOwnerNamespace holds the namespace of the owning Kubernetes object.
	TagOwnerNamespace = TagPrefix + "owner-namespace"
	// TagOwnerName holds the name of the owning Kubernetes object.
	TagOwnerName = TagPrefix + "owner-name"
	// TagCluster holds the identity of the cluster whose operator created the
	// resource (the kube-system Namespace's UID, or --cluster-id). Namespace and name
	// repeat across clusters that share an AWS account; this tag tells their
	// resources apart, and the IAM policy checks its value. Its key has one form on
	// every resource, valid also on an instance that exposes its tags in instance
	// metadata (IMDSSafePrefix), so that each of the policy's statements needs one
	// condition on it: two forms would double the policy past IAM's 6,144-character
	// limit for a managed policy.
	TagCluster = IMDSSafePrefix + "cluster"
	// TagName is the tag the EC2 console shows as the instance name.
	TagName = "Name"
)

// IMDSSafePrefix replaces TagPrefix in the ownership tag keys of an instance that
// exposes its tags in instance metadata (spec.metadataOptions.instanceMetadataTags
// enabled). EC2 then refuses instance tag keys with a slash or a space ("Work with
// instance tags in instance metadata" in the EC2 User Guide), and every key under
// TagPrefix has one. The rule covers instance tags only, so volumes, interfaces and
// addresses keep the TagPrefix form.
const IMDSSafePrefix = "ec2-operator.dev:"

// The IMDS-safe forms of the ownership tag keys. Everything that reads an ownership
// tag reads both forms (OwnerTag), because an instance carries one or the other
// depending on its metadata options, and a migration between them is under way for a
// moment on every instance whose spec changes.
const (
	// TagOwnerUIDSafe is TagOwnerUID on an instance with tags in instance metadata.
	TagOwnerUIDSafe = IMDSSafePrefix + "owner-uid"
	// TagOwnerNamespaceSafe is TagOwnerNamespace in the IMDS-safe form.
	TagOwnerNamespaceSafe = IMDSSafePrefix + "owner-namespace"
	// TagOwnerNameSafe is TagOwnerName in the IMDS-safe form.
	TagOwnerNameSafe = IMDSSafePrefix + "owner-name"
	// TagClusterSafe is TagCluster, whose one form is IMDS-safe already.
	TagClusterSafe = TagCluster
)

// safeOwnershipKeys maps each ownership key to its IMDS-safe form.
var safeOwnershipKeys = map[string]string{
	TagOwnerUID:       TagOwnerUIDSafe,
	TagOwnerNamespace: TagOwnerNamespaceSafe,
	TagOwnerName:      TagOwnerNameSafe,
	TagCluster:        TagClusterSafe,
}

// SafeOwnershipKey returns the IMDS-safe form of an ownership key, and any other key
// unchanged.
func SafeOwnershipKey(key string) string {
	if safe, ok := safeOwnershipKeys[key]; ok {
		return safe
	}
	return key
}

// IsOwnershipKey reports whether key is an ownership key in either form.
func IsOwnershipKey(key string) bool {
	if _, ok := safeOwnershipKeys[key]; ok {
		return true
	}
	for _, safe := range safeOwnershipKeys {
		if key == safe {
			return true
		}
	}
	return false
}

// LookupOwnerTag returns the value of the ownership tag key (given in the TagPrefix
// form) in either form, and whether the resource carries it. The TagPrefix form wins
// when both are present, which only happens for a moment during a migration, when
// both hold the same value.
func LookupOwnerTag(tags map[string]string, key string) (string, bool) {
	if v, ok := tags[key]; ok {
		return v, true
	}
	v, ok := tags[SafeOwnershipKey(key)]
	return v, ok
}

// OwnerTag returns the value of the ownership tag key in either form, or "".
func OwnerTag(tags map[string]string, key string) string {
	v, _ := LookupOwnerTag(tags, key)
	return v
}

// IMDSSafeTags returns tags with the ownership keys in the IMDS-safe form: the tags
// of an instance that exposes them in instance metadata.
func IMDSSafeTags(tags map[string]string) map[string]string {
	out := make(map[string]string, len(tags))
	for k, v := range tags {
		out[SafeOwnershipKey(k)] = v
	}
	return out
}

// maxClientTokenLength is EC2's limit on idempotency tokens.
const maxClientTokenLength = 64

// OwnershipTags returns the tags that identify the Kubernetes owner of an instance:
// the object and the cluster it lives in. An empty cluster leaves the cluster tag out,
// which only tests of this package and resources made to look like an earlier
// version's do; the manager always knows its cluster.
func OwnershipTags(namespace, name, uid, cluster string) map[string]string {
	tags := map[string]string{
		TagOwnerUID:       uid,
		TagOwnerNamespace: namespace,
		TagOwnerName:      name,
	}
	if cluster != "" {
		tags[TagCluster] = cluster
	}
	return tags
}

// OwnershipTagKeys are the keys of OwnershipTags in both forms, which a resource the
// operator lets go of loses, so that it is nobody's and may be adopted again. EC2's
// DeleteTags ignores keys a resource does not carry.
func OwnershipTagKeys() []string {
	return []string{TagOwnerUID, TagOwnerNamespace, TagOwnerName, TagCluster,
		TagOwnerUIDSafe, TagOwnerNamespaceSafe, TagOwnerNameSafe}
}

// DesiredTags returns the full set of tags an instance should carry: the user's tags,
// Name set to the object's name unless the user chose a Name, and the ownership tags.
// Ownership tags always win so that a user cannot break instance recovery; user tags
// under TagPrefix or IMDSSafePrefix are dropped for the same reason.
func DesiredTags(userTags map[string]string, namespace, name, uid, cluster string) map[string]string {
	out := make(map[string]string, len(userTags)+5)
	for k, v := range userTags {
		if strings.HasPrefix(k, TagPrefix) || strings.HasPrefix(k, IMDSSafePrefix) {
			continue
		}
		out[k] = v
	}
	if _, ok := out[TagName]; !ok {
		out[TagName] = name
	}
	for k, v := range OwnershipTags(namespace, name, uid, cluster) {
		out[k] = v
	}
	return out
}

// TagDiff computes the changes that bring actual to desired. toSet holds every desired
// tag that is missing or has another value. toDelete holds only keys that the operator
// managed before (previouslyManagedKeys) and that are no longer desired: tags put on the
// instance by anyone else are never deleted, even when they are not desired. toDelete
// is sorted so that callers and tests see a stable order; both results are nil when
// there is nothing to do.
func TagDiff(desired, actual map[string]string, previouslyManagedKeys []string) (toSet map[string]string, toDelete []string) {
	for k, v := range desired {
		if cur, ok := actual[k]; !ok || cur != v {
			if toSet == nil {
				toSet = make(map[string]string)
			}
			toSet[k] = v
		}
	}
	seen := make(map[string]bool, len(previouslyManagedKeys))
	for _, k := range previouslyManagedKeys {
		if seen[k] {
			continue
		}
		seen[k] = true
		if _, want := desired[k]; want {
			continue
		}
		if _, has := actual[k]; !has {
			continue
		}
		toDelete = append(toDelete, k)
	}
	sort.Strings(toDelete)
	return toSet, toDelete
}

// ClientToken derives EC2's idempotency token from the owner's UID and the number of
// times the instance was recreated. The same inputs always give the same token, so a
// launch retried after a crash cannot create a second instance; bumping recreations
// gives a fresh token once the previous instance is gone for good (EC2 refuses to reuse
// the token of a terminated instance with IdempotentInstanceTerminated).
func ClientToken(uid string, recreations int32) string {
	suffix := "-" + strconv.FormatInt(int64(recreations), 10)
	var b strings.Builder
	for _, r := range uid {
		// Keep the token printable ASCII without separators of its own; a Kubernetes
		// UID is hex with dashes, so this only drops the dashes.
		if r < 0x80 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	base := b.String()
	if max := maxClientTokenLength - len(suffix); len(base) > max {
		base = base[:max]
	}
	return base + suffix
}

// TagDevice names, on a data volume the operator created after launch, the device it
// was created for, so that a volume whose creation answer was lost can be found by its
// owner and device.
const TagDevice = TagPrefix + "device"

// TagReleased marks a volume or an address the operator let go of (removed from the
// spec with deleteOnTermination false, or left by a deleted object): its value names
// the instance it belonged to.
const TagReleased = TagPrefix + "released-from"

// VolumeClientToken is the CreateVolume idempotency token of a data volume added after
// launch: the object's UID, the instance, the number of volumes removed from the
// object before, and everything the call sends (zone, device, size, type, IOPS,
// throughput, encryption, key, snapshot and tags), hashed to EC2's 64 characters. The
// same request asked for again (after a crash, a lost answer) gets the same token. A
// request with other parameters (the spec was edited meanwhile) gets another, because
// EC2 answers a token reused with other parameters with IdempotentParameterMismatch,
// however often it is asked; so does a volume re-added under the same device after a
// removal, or for a replacement instance.
func VolumeClientToken(uid, instanceID string, removals int32, zone string, req VolumeRequest, tags map[string]string) string {
	h := sha256.New()
	encrypted := "unset"
	if req.Encrypted != nil {
		encrypted = strconv.FormatBool(*req.Encrypted)
	}
	// Quoted strings keep the fields apart whatever characters they hold.
	fmt.Fprintf(h, "%q %q %d %q %q %d %q %d %d %s %q %q", uid, instanceID, removals, zone,
		req.Device, req.SizeGiB, req.Type, req.IOPS, req.Throughput, encrypted, req.KMSKeyID, req.SnapshotID)
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		fmt.Fprintf(h, " %q=%q", k, tags[k])
	}
	return "vol-" + hex.EncodeToString(h.Sum(nil))[:56]
}
