#!/usr/bin/env bash
# Adds what OpenShift's catalogs read to the bundle operator-sdk generated, as an
# annotation in metadata/annotations.yaml (what opm reads from a directory) and as the
# same label in bundle.Dockerfile (what a catalog build reads from the image):
# - com.redhat.openshift.versions: the OpenShift versions whose catalogs list the
#   bundle. "v4.17" means 4.17 and later, "=v4.17" only 4.17, "v4.17-v4.19" a range
#   (Red Hat's certified operator guide, "Managing OpenShift Versions"; the same
#   syntax applies to the community catalogs).
#
# usage: hack/openshift-bundle-metadata.sh BUNDLE_DIR BUNDLE_DOCKERFILE OPENSHIFT_VERSIONS
set -euo pipefail
bundle=$1 dockerfile=$2 versions=$3
annotations=$bundle/metadata/annotations.yaml

[[ "$versions" =~ ^=?v4\.[0-9]+(-v4\.[0-9]+)?$ ]] || { echo "openshift-bundle-metadata: bad OpenShift versions $versions" >&2; exit 1; }
grep -q '^annotations:' "$annotations" || { echo "$annotations has no annotations map" >&2; exit 1; }
grep -q '^# Copy files' "$dockerfile" || { echo "$dockerfile has no '# Copy files' section" >&2; exit 1; }
if grep -q 'com.redhat.openshift.versions' "$annotations" "$dockerfile"; then
  echo "openshift-bundle-metadata: $annotations or $dockerfile already names OpenShift versions" >&2
  exit 1
fi

printf '\n  # OpenShift catalogs.\n  com.redhat.openshift.versions: "%s"\n' "$versions" >>"$annotations"
sed -i -e "s|^# Copy files|# OpenShift catalogs.\nLABEL com.redhat.openshift.versions=$versions\n\n# Copy files|" "$dockerfile"
