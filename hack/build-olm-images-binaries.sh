#!/usr/bin/env bash
# Builds OLM v0's programs as static binaries for the cluster's OLM images: the olm and
# catalog operators, packageserver, and the copy tools the bundle unpack Job runs
# (cpb from util/cpb, copy-content). The olm and catalog binaries in bin/ used by
# test/release link glibc (cgo); these run in images without a libc.
#
# Usage: hack/build-olm-images-binaries.sh <olm-version> <dest-dir>
set -euo pipefail
version=${1:?OLM version, e.g. v0.40.0}
mkdir -p "${2:?destination directory}"
dest=$(cd "$2" && pwd)
dir=$(go mod download -json "github.com/operator-framework/operator-lifecycle-manager@$version" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -n "$dir" ]] || { echo "could not download operator-lifecycle-manager $version" >&2; exit 1; }
# One go build for every missing program: they share most of OLM's packages, and one
# build compiles each package once with both cores busy across the whole graph.
source "$(dirname "$0")/tool-store.sh"
outputs=()
for pkg in cmd/olm cmd/catalog cmd/package-server cmd/copy-content util/cpb; do outputs+=("$dest/$(basename "$pkg")"); done
key=$(GOFIPS140=off tool_store_key "olm-$version" "$0")
if tool_store_restore "$key" "${outputs[@]}"; then
  echo "OLM binaries installed in $dest"
  exit 0
fi
pkgs=()
for pkg in cmd/olm cmd/catalog cmd/package-server cmd/copy-content util/cpb; do
  [[ -x "$dest/$(basename "$pkg")" ]] || pkgs+=("./$pkg")
done
if (( ${#pkgs[@]} > 0 )); then
  echo ">> building OLM $version ${pkgs[*]} (static, one go build)"
  start=$(date +%s)
  work=$(mktemp -d "$dest/.build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  # Built as the project releases it, with the toolchain's crypto (the Makefile's
  # GOFIPS140 is for our own binaries and Kubernetes's).
  (cd "$dir" && GOFLAGS=-buildvcs=false GOWORK=off CGO_ENABLED=0 GOFIPS140=off go build -trimpath -tags json1 \
    -ldflags "-s -w -X github.com/operator-framework/operator-lifecycle-manager/pkg/version.OLMVersion=${version#v}" \
    -o "$work/" "${pkgs[@]}")
  for pkg in "${pkgs[@]}"; do mv "$work/$(basename "$pkg")" "$dest/$(basename "$pkg")"; done
  echo ">> built OLM's programs in $(( $(date +%s) - start ))s"
fi
tool_store_save "$key" "${outputs[@]}"
echo "OLM binaries installed in $dest"
