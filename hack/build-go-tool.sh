#!/usr/bin/env bash
# Builds one command from a Go module at a pinned version into bin/, for the tools whose
# modules cannot be `go install`ed here (operator-sdk, opm, scorecard-test): the module
# proxy refuses their version lists, or their go.mod has replace directives. A named
# version still downloads, so we download it and build inside its directory.
#
# usage: hack/build-go-tool.sh OUT MODULE VERSION PACKAGE [CGO_ENABLED] [TAGS] [LDFLAGS]
#   OUT      the binary to write, e.g. bin/opm (written as OUT-VERSION plus a symlink)
#   PACKAGE  the package inside the module, e.g. ./cmd/opm
set -euo pipefail

out=$1 module=$2 version=$3 pkg=$4 cgo=${5:-0} tags=${6:-} ldflags=${7:-}
# -s: a symlink left by an earlier run (OUT -> OUT-VERSION) must not be resolved.
out=$(realpath -ms "$out")
versioned="$out-$version"

if [[ -x "$versioned" ]]; then
  ln -sf "$versioned" "$out"
  exit 0
fi
source "$(dirname "$0")/tool-store.sh"
key=$(GOFIPS140=off tool_store_key "$(basename "$versioned")" "$module" "$version" "$pkg" "$cgo" "$tags" "$ldflags" "$0")
if tool_store_restore "$key" "$versioned"; then
  ln -sf "$versioned" "$out"
  exit 0
fi

echo "building $module@$version $pkg (one time; later runs reuse $versioned)" >&2
dir=$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [[ -z "$dir" ]]; then
  echo "could not download $module@$version" >&2
  exit 1
fi
mkdir -p "$(dirname "$out")"
start=$(date +%s)
(
  cd "$dir"
  # The module's own go.mod and go.sum decide every dependency version, and the tool is
  # built as its project releases it, with the toolchain's crypto: the Makefile's
  # GOFIPS140 is for our own binaries and Kubernetes's.
  GOFLAGS=-buildvcs=false GOWORK=off CGO_ENABLED=$cgo GOFIPS140=off go build -trimpath \
    ${tags:+-tags "$tags"} -ldflags "-s -w $ldflags" -o "$versioned.tmp" "$pkg"
)
mv "$versioned.tmp" "$versioned"
tool_store_save "$key" "$versioned"
ln -sf "$versioned" "$out"
echo "built $versioned in $(( $(date +%s) - start ))s" >&2
