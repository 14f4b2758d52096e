#!/usr/bin/env bash
# Fails when the generated files in the working tree (deepcopy code, CRDs, RBAC, the
# API reference) differ
# from what the generators produce from the current Go sources, i.e. when someone edited
# API types or RBAC markers and forgot `make manifests generate`, or hand-edited output.
#
# It regenerates in a scratch copy of the tree, so it never changes your files.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
controller_gen=${CONTROLLER_GEN:-$root/bin/controller-gen}
crd_ref_docs=${CRD_REF_DOCS:-$root/bin/crd-ref-docs}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

tar -C "$root" --exclude=./bin --exclude=./.git --exclude=./dist -cf - . | tar -C "$scratch" -xf -
(
  cd "$scratch"
  "$controller_gen" object:headerFile="hack/boilerplate.go.txt" paths="./api/...;./cmd/...;./internal/..."
  "$controller_gen" rbac:roleName=manager-role crd webhook paths="./api/...;./cmd/...;./internal/..." output:crd:artifacts:config=config/crd/bases
  # A template's spec drops the embedded kind's transition rules (cmd/crdtemplate).
  go run ./cmd/crdtemplate config/crd/bases/compute.ec2-operator.dev_ec2instancesets.yaml spec.template.spec
  "$crd_ref_docs" --source-path=./api --config=hack/api-reference.yaml --renderer=markdown \
    --output-path=docs/api-reference.md --log-level=ERROR
)

status=0
for path in api config/crd/bases config/rbac/role.yaml docs/api-reference.md; do
  # A path neither side has (no RBAC markers yet) is current by definition.
  [[ -e "$root/$path" || -e "$scratch/$path" ]] || continue
  if ! diff -ruN "$root/$path" "$scratch/$path" >"$scratch.diff" 2>&1; then
    echo "generated files under $path are stale; run 'make manifests generate' and commit the result:" >&2
    head -50 "$scratch.diff" >&2
    status=1
  fi
done
rm -f "$scratch.diff"
exit $status
