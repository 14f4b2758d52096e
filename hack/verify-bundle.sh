#!/usr/bin/env bash
# Fails when the committed OLM bundle, catalog or dist/install.yaml differ from what `make bundle catalog`
# produces from the current sources: someone changed config/ or the API markers and
# forgot to regenerate, hand-edited generated files, or the generation is not
# reproducible (a timestamp, an unpinned tool). The images they name are the release
# pins (config/release/images.env), so a change to the Go sources alone never makes
# them stale; make verify-release checks the pins themselves at a release.
#
# It regenerates in a scratch copy of the tree, so it never changes your files. The
# tools come from $LOCALBIN (the Makefile builds them there first).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
localbin=${LOCALBIN:-$root/bin}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# make catalog builds the bundle image, whose build wants the sources' last commit,
# which the scratch copy (no .git) cannot tell, so it is computed here.
revision=$(cd "$root" && go run ./cmd/images revision)
tar -C "$root" --exclude=./bin --exclude=./.git -cf - . | tar -C "$scratch" -xf -
make -C "$scratch" --no-print-directory bundle catalog LOCALBIN="$localbin" SOURCE_REVISION="$revision" >"$scratch.log" 2>&1 || {
  cat "$scratch.log" >&2
  rm -f "$scratch.log"
  echo "make bundle catalog failed in a scratch copy" >&2
  exit 1
}
rm -f "$scratch.log"

status=0
for path in bundle bundle.Dockerfile catalog catalog.Dockerfile config/catalog config/manifests config/manager/kustomization.yaml dist/install.yaml dist/chart; do
  if ! diff -ruN "$root/$path" "$scratch/$path" >"$scratch.diff" 2>&1; then
    echo "$path is stale or not reproducible; run 'make bundle catalog' and commit the result:" >&2
    head -60 "$scratch.diff" >&2
    status=1
  fi
done
rm -f "$scratch.diff"
[[ $status -eq 0 ]] && echo "bundle/ and catalog/ are reproducible and current"
exit $status
