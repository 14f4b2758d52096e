#!/usr/bin/env bash
# Makes the generated CSV reproducible and consistent with the image being released:
# operator-sdk stamps createdAt with the current time, so it is replaced by the release
# date; containerImage and relatedImages are set to the manager image (operator-sdk
# writes relatedImages only with --use-image-digests, which needs a registry).
#
# usage: hack/pin-bundle.sh CSV_FILE CREATED_AT IMAGE
set -euo pipefail
csv=$1 created_at=$2 image=$3

grep -q '^    createdAt: ' "$csv" || { echo "$csv has no createdAt annotation" >&2; exit 1; }
grep -q '^  version: ' "$csv" || { echo "$csv has no spec.version" >&2; exit 1; }
sed -i \
  -e "s|^    createdAt: .*|    createdAt: \"$created_at\"|" \
  -e "s|^    containerImage: .*|    containerImage: $image|" \
  -e '/^  relatedImages:/,/^  [a-zA-Z]/{/^  relatedImages:/b;/^  [a-zA-Z]/b;d}' \
  -e '/^  relatedImages:/d' \
  "$csv"
# spec.relatedImages sorts just before spec.version.
sed -i -e "s|^  version: |  relatedImages:\n  - image: $image\n    name: manager\n  version: |" "$csv"
