#!/usr/bin/env bash
# Builds OLM v1's two programs, operator-controller and catalogd, as static binaries
# into bin/cluster/olmv1/, from github.com/operator-framework/operator-controller at a
# pinned release. catalogd lives in the same module since v1.2 (cmd/catalogd).
#
# The module proxy refuses this module's version list (403) and most of its tags:
# checked 2026-12-02, only v1.2.0 downloads (v1.1.0, v1.2.1, v1.3.x, v1.4.x, v1.5.0 and
# v1.6.0 are "not available"; v1.5.1 fails checksum verification). v1.2.0's go directive
# is go 1.23.4, so our Go builds it.
#
# Idempotent: a binary that exists is not rebuilt. Cold build: see docs/olmv1.md.
set -euo pipefail

cd "$(dirname "$0")/.."
OLMV1_VERSION=${OLMV1_VERSION:-v1.2.0}
module=github.com/operator-framework/operator-controller
out=$(realpath -m bin/cluster/olmv1)
mkdir -p "$out"

dir=
for prog in operator-controller catalogd; do
  bin="$out/$prog-$OLMV1_VERSION"
  if [[ -x "$bin" ]]; then
    ln -sf "$(basename "$bin")" "$out/$prog"
    continue
  fi
  if [[ -z "$dir" ]]; then
    dir=$(go mod download -json "$module@$OLMV1_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    [[ -n "$dir" ]] || { echo "could not download $module@$OLMV1_VERSION" >&2; exit 1; }
  fi
  echo "building $prog from $module@$OLMV1_VERSION" >&2
  start=$(date +%s)
  (
    cd "$dir"
    # The release's own build: tag containers_image_openpgp (no gpgme), version via -X.
    GOFLAGS=-buildvcs=false GOWORK=off CGO_ENABLED=0 go build -trimpath \
      -tags containers_image_openpgp \
      -ldflags "-s -w -X '$module/internal/shared/version.version=$OLMV1_VERSION' -X '$module/internal/shared/version.repoState=clean'" \
      -o "$bin.tmp" "./cmd/$prog"
  )
  mv "$bin.tmp" "$bin"
  ln -sf "$(basename "$bin")" "$out/$prog"
  echo "built $bin in $(( $(date +%s) - start ))s" >&2
done
