#!/usr/bin/env bash
# Makes the generated bundle reproducible and pins it to the release images by digest:
# - createdAt: operator-sdk stamps the current time; it is replaced by the release date.
# - containerImage and relatedImages: the operator image by digest (operator-sdk writes
#   relatedImages only with --use-image-digests, which needs a registry). The
#   Deployment's image is already the digest (make bundle sets it with kustomize).
# - the must-gather image: `oc adm must-gather --all-images` runs the image the CSV's
#   operators.openshift.io/must-gather-image annotation names, and a disconnected
#   install mirrors it, so it is in relatedImages too.
# - the custom scorecard test's image: config/scorecard names it by tag, in any
#   repository; the bundle names the image make images built, by digest.
#
# usage: hack/pin-bundle.sh BUNDLE_DIR CREATED_AT OPERATOR_IMAGE SCORECARD_IMAGE MUST_GATHER_IMAGE
set -euo pipefail
bundle=$1 created_at=$2 image=$3 scorecard_image=$4 must_gather_image=$5
csv=$bundle/manifests/ec2-operator.clusterserviceversion.yaml
scorecard=$bundle/tests/scorecard/config.yaml

for ref in "$image" "$scorecard_image" "$must_gather_image"; do
  [[ "$ref" == *@sha256:* ]] || { echo "pin-bundle: $ref is not a digest reference" >&2; exit 1; }
done
grep -q '^    createdAt: ' "$csv" || { echo "$csv has no createdAt annotation" >&2; exit 1; }
grep -q '^  version: ' "$csv" || { echo "$csv has no spec.version" >&2; exit 1; }
grep -q '^    operators.openshift.io/must-gather-image: ' "$csv" || { echo "$csv has no must-gather-image annotation" >&2; exit 1; }
sed -i \
  -e "s|^    createdAt: .*|    createdAt: \"$created_at\"|" \
  -e "s|^    containerImage: .*|    containerImage: $image|" \
  -e "s|^    operators.openshift.io/must-gather-image: .*|    operators.openshift.io/must-gather-image: $must_gather_image|" \
  -e '/^  relatedImages:/,/^  [a-zA-Z]/{/^  relatedImages:/b;/^  [a-zA-Z]/b;d}' \
  -e '/^  relatedImages:/d' \
  "$csv"
# spec.relatedImages sorts just before spec.version.
sed -i -e "s|^  version: |  relatedImages:\n  - image: $image\n    name: manager\n  - image: $must_gather_image\n    name: must-gather\n  version: |" "$csv"

pattern='image: [^ ]*/ec2-operator-scorecard[:@][^ ]*$'
grep -q "$pattern" "$scorecard" || { echo "$scorecard names no ec2-operator-scorecard image" >&2; exit 1; }
sed -i -e "s|$pattern|image: $scorecard_image|" "$scorecard"
