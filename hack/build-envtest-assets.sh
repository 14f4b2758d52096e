#!/usr/bin/env bash
# Builds the envtest control plane (kube-apiserver, kubectl, etcd) from Go modules and
# installs it in setup-envtest's store layout, so that `setup-envtest use -i` finds it.
#
# Why: setup-envtest normally downloads release binaries, which some machines (air-gapped
# CI, proxies that only serve Go modules) cannot reach. The Go module proxy still serves
# the sources, and the build is reproducible, so we build the same versions ourselves.
#
# Usage: hack/build-envtest-assets.sh <k8s-version, e.g. 1.37.2> <bin-dir> [etcd-version]
set -euo pipefail

k8s_version=${1:?kubernetes version, e.g. 1.37.2}
bin_dir=${2:?setup-envtest bin dir, e.g. ./bin}
etcd_version=${3:-3.7.3}

goos=$(go env GOOS)
goarch=$(go env GOARCH)
mkdir -p "$bin_dir"
bin_dir=$(cd "$bin_dir" && pwd)
dest="$bin_dir/k8s/${k8s_version}-${goos}-${goarch}"

if [[ -x "$dest/kube-apiserver" && -x "$dest/etcd" && -x "$dest/kubectl" ]]; then
  echo "envtest assets already built in $dest"
  exit 0
fi
source "$(dirname "$0")/tool-store.sh"
# A kubectl copied from the main version is that version's kubectl, not this one's.
kubectl_from=""
[[ -n "${KUBECTL_FROM:-}" && -x "${KUBECTL_FROM}" ]] && kubectl_from=main
key=$(tool_store_key "envtest-$k8s_version" "$etcd_version" "kubectl-from:$kubectl_from" \
  "$0" "$(dirname "$0")/kube-wrapper.sh")
if tool_store_restore "$key" "$dest/kube-apiserver" "$dest/kubectl" "$dest/etcd"; then
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest.partial"

source "$(dirname "$0")/kube-wrapper.sh"
mkdir -p "$work/kube"
kube_wrapper "$work/kube" "$k8s_version" kube-apiserver kubectl
cmds="kube-apiserver kubectl"
if [[ -n "${KUBECTL_FROM:-}" && -x "${KUBECTL_FROM}" ]]; then
  # A control plane for API tests only (the oldest supported version): envtest does
  # not run kubectl, and a newer one is in kubectl's skew policy; copying it saves a build.
  echo ">> kubectl: copied from ${KUBECTL_FROM}"
  cp "$KUBECTL_FROM" "$dest.partial/kubectl"
  cmds="kube-apiserver"
fi
echo ">> building $cmds v${k8s_version} in one go build (10-20 minutes on 2 cores with a cold cache)"
start=$(date +%s)
# shellcheck disable=SC2086 # cmds is a list of command names
kube_build "$work/kube" "$k8s_version" "$dest.partial" $cmds
echo ">> built $cmds in $(( $(date +%s) - start ))s"

if [[ -n "${ETCD_FROM:-}" && -x "${ETCD_FROM}" ]] && "$ETCD_FROM" --version 2>/dev/null | grep -q "etcd Version: ${etcd_version}\$"; then
  # Every supported Kubernetes's control plane runs the same etcd release here: copy the
  # one built for another version instead of building it twice.
  echo ">> etcd v${etcd_version}: copied from ${ETCD_FROM}"
  cp "$ETCD_FROM" "$dest.partial/etcd"
else
echo ">> building etcd v${etcd_version}"
start=$(date +%s)
mkdir -p "$work/etcd"
cat >"$work/etcd/go.mod" <<GOMOD
module envtestassets/etcd

go 1.25

require go.etcd.io/etcd/server/v3 v${etcd_version}
GOMOD
cat >"$work/etcd/tools.go" <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
(cd "$work/etcd" && GOFLAGS=-mod=mod go mod tidy -e >/dev/null &&
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dest.partial/etcd" go.etcd.io/etcd/server/v3)

echo ">> built etcd in $(( $(date +%s) - start ))s"
fi

rm -rf "$dest"
mv "$dest.partial" "$dest"
tool_store_save "$key" "$dest/kube-apiserver" "$dest/kubectl" "$dest/etcd"
echo "envtest assets installed in $dest"
"$dest/kube-apiserver" --version
