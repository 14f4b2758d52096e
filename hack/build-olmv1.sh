#!/usr/bin/env bash
# Builds OLM v1's two programs, operator-controller and catalogd, as static binaries
# into bin/cluster/olmv1/, from github.com/operator-framework/operator-controller at a
# pinned release. catalogd lives in the same module since v1.2 (cmd/catalogd).
#
# The module proxy refuses this module's version list (403) and most of its tags:
# checked 2026-12-02, only v1.2.0 downloads (v1.1.0, v1.2.1, v1.3.0, v1.3.1, v1.4.0,
# v1.4.1, v1.5.0 and v1.6.0 are "not available"; v1.5.1 fails checksum verification).
# v1.2.0's go directive is go 1.23.4, so our Go builds it.
#
# operator-controller v1.2.0 cannot install our bundle unpatched: it turns a
# registry+v1 bundle into a Helm chart whose templates are the bundle's objects, so
# Helm's template engine parses our PrometheusRule's alert annotations
# ({{ $value }}, {{ $labels.account }}) and fails ('undefined variable "$value"').
# We build it from a copy of the module with cmd/devcluster/olmv1/*.patch applied (a
# two-line change that quotes "{{" before Helm renders). catalogd is unpatched.
#
# Idempotent: a binary that exists is not rebuilt. Measured on 2 cores shared with
# other builds (load 8-16): operator-controller 552 s with a cold cache, catalogd 24 s
# after it; the patched operator-controller 10 s once the unpatched one had filled the
# cache (same -trimpath flags, so only the patched package and the link are redone).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
source hack/tool-store.sh
OLMV1_VERSION=${OLMV1_VERSION:-v1.2.0}
module=github.com/operator-framework/operator-controller
out=$(realpath -m bin/cluster/olmv1)
mkdir -p "$out"
patches=("$root"/cmd/devcluster/olmv1/operator-controller-"$OLMV1_VERSION"-*.patch)
[[ -e ${patches[0]} ]] || patches=()

dir=
src=
for prog in operator-controller catalogd; do
  # The binary's name says whether it is patched: a stale unpatched build is not reused.
  suffix=
  [[ $prog == operator-controller && ${#patches[@]} -gt 0 ]] && suffix=-patched
  bin="$out/$prog-$OLMV1_VERSION$suffix"
  key=$(GOFIPS140=off tool_store_key "$(basename "$bin")" "$root/hack/build-olmv1.sh" ${suffix:+"${patches[@]}"})
  if [[ ! -x "$bin" ]] && ! tool_store_restore "$key" "$bin"; then
    if [[ -z "$dir" ]]; then
      dir=$(go mod download -json "$module@$OLMV1_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
      [[ -n "$dir" ]] || { echo "could not download $module@$OLMV1_VERSION" >&2; exit 1; }
    fi
    builddir=$dir
    if [[ -n $suffix ]]; then
      # A fixed path, so a rebuild reuses the build cache.
      src=${TMPDIR:-/tmp}/ec2-operator-olmv1-src/operator-controller@$OLMV1_VERSION
      rm -rf "$src" && mkdir -p "$(dirname "$src")" && cp -r "$dir" "$src" && chmod -R u+w "$src"
      for p in "${patches[@]}"; do patch -d "$src" -p1 --quiet < "$p"; done
      builddir=$src
    fi
    echo "building $prog from $module@$OLMV1_VERSION${suffix:+ with ${patches[*]##*/}}" >&2
    start=$(date +%s)
    (
      cd "$builddir"
      # The release's own build: tag containers_image_openpgp (no gpgme), version via -X,
      # the toolchain's crypto (the Makefile's GOFIPS140 is for our own binaries).
      GOFLAGS=-buildvcs=false GOWORK=off CGO_ENABLED=0 GOFIPS140=off go build -trimpath \
        -tags containers_image_openpgp \
        -ldflags "-s -w -X '$module/internal/shared/version.version=$OLMV1_VERSION' -X '$module/internal/shared/version.repoState=clean'" \
        -o "$bin.tmp" "./cmd/$prog"
    )
    mv "$bin.tmp" "$bin"
    tool_store_save "$key" "$bin"
    echo "built $bin in $(( $(date +%s) - start ))s" >&2
  fi
  # cmd/devcluster packs bin/cluster/olmv1/$prog (this symlink) into the image.
  ln -sfn "$(basename "$bin")" "$out/$prog"
done
