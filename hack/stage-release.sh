#!/usr/bin/env bash
# Stages the release manifests pinned to the images just built, for the tests that
# install them (test/release, test/cluster) and for make images-push's check.
#
# Between releases the committed bundle/, catalog/, dist/install.yaml and dist/chart
# name the last release's images (config/release/images.env), so a change to the
# operator's sources lands in one commit with no re-pin. The tests must still install
# what these sources build: this copies those manifests into STAGE_DIR and replaces
# each release digest with the digest of the image in IMAGES_DIR. The bundle and
# catalog images are then built from STAGE_DIR (make images), so the catalog names the
# staged bundle, and the staged bundle the images built now.
#
# usage: hack/stage-release.sh STAGE_DIR RELEASE_PINS IMAGES_TOOL IMAGES_DIR
set -euo pipefail
stage=${1:?stage directory} pins=${2:?release pins file} tool=${3:?images tool} images=${4:?images directory}
root=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=/dev/null
source "$pins"
rm -rf "$stage" && mkdir -p "$stage/config"
for path in bundle bundle.Dockerfile catalog catalog.Dockerfile dist config/catalog; do
  cp -r "$root/$path" "$stage/$path"
done

# repin OLD_REF IMAGE: replaces OLD_REF's digest by the digest of the built IMAGE in
# every staged file. Digests are unique, so this also reaches the chart's values,
# which hold the digest apart from the repository.
repin() {
  local old=${1#*@} new
  [[ $old == sha256:* ]] || { echo "stage-release: $1 in $pins is not a digest reference" >&2; exit 1; }
  new=$("$tool" digest "$images/$2")
  grep -rlF "$old" "$stage" | while read -r f; do sed -i "s|$old|$new|g" "$f"; done
  echo "staged $2: ${1%@*}@$new"
}
repin "$OPERATOR_IMAGE" operator
repin "$SCORECARD_IMAGE" scorecard
repin "$MUST_GATHER_IMAGE" must-gather
