#!/usr/bin/env bash
# Builds what a single Kubernetes node needs on top of the envtest control plane
# (kube-apiserver, etcd, kubectl from build-envtest-assets.sh), all from Go modules:
# kube-controller-manager, kube-scheduler, kubelet and kube-proxy from k8s.io/kubernetes,
# CoreDNS with only the plugins the cluster needs (no forward plugin, so no DNS query
# leaves the machine), and the pause binary from the C source in the kubernetes module.
#
# Usage: hack/build-node-binaries.sh <k8s-version> <dest-dir> [coredns-version]
# Cached: a second run with the binaries present does nothing.
set -euo pipefail

k8s_version=${1:?kubernetes version, e.g. 1.37.2}
mkdir -p "${2:?destination directory}"
dest=$(cd "$2" && pwd)
coredns_version=${3:-1.15.0}
cmds="kube-controller-manager kube-scheduler kubelet kube-proxy"

have=1
for f in $cmds coredns pause; do [[ -x "$dest/$f" ]] || have=0; done
if [[ $have == 1 ]]; then
  echo "node binaries already built in $dest"
  exit 0
fi
source "$(dirname "$0")/tool-store.sh"
outputs=()
for f in $cmds coredns pause; do outputs+=("$dest/$f"); done
key=$(tool_store_key "node-$k8s_version" "$coredns_version" "$0" "$(dirname "$0")/kube-wrapper.sh" \
  "$(dirname "$0")/../cmd/devcluster/coredns-main.go.txt" "$(gcc --version 2>/dev/null | head -1)")
if tool_store_restore "$key" "${outputs[@]}"; then
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/kube-wrapper.sh"
mkdir -p "$work/kube"
kube_wrapper "$work/kube" "$k8s_version" $cmds
missing=()
for cmd in $cmds; do [[ -x "$dest/$cmd" ]] || missing+=("$cmd"); done
if (( ${#missing[@]} > 0 )); then
  echo ">> building ${missing[*]} v${k8s_version} in one go build"
  start=$(date +%s)
  kube_build "$work/kube" "$k8s_version" "$work/out" "${missing[@]}"
  for cmd in "${missing[@]}"; do mv "$work/out/$cmd" "$dest/$cmd"; done
  echo ">> built ${missing[*]} in $(( $(date +%s) - start ))s"
fi

if [[ ! -x "$dest/pause" ]]; then
  # The pause container's program is C in the kubernetes module; built static, it needs
  # no libc in its image.
  command -v gcc >/dev/null || { echo "gcc is needed for the pause binary (apt-get install gcc libc6-dev)" >&2; exit 1; }
  kube_dir=$(cd "$work/kube" && go mod download -json "k8s.io/kubernetes@v${k8s_version}" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  echo ">> building pause"
  gcc -Os -static -DVERSION="v3.10" -o "$dest/pause.tmp" "$kube_dir/build/pause/linux/pause.c"
  strip "$dest/pause.tmp"
  mv "$dest/pause.tmp" "$dest/pause"
fi

if [[ ! -x "$dest/coredns" ]]; then
  echo ">> building coredns v${coredns_version}"
  mkdir -p "$work/coredns"
  cp "$(dirname "$0")/../cmd/devcluster/coredns-main.go.txt" "$work/coredns/main.go"
  cat >"$work/coredns/go.mod" <<GOMOD
module clusterdns

go 1.25

require github.com/coredns/coredns v${coredns_version}
GOMOD
  (cd "$work/coredns" && GOFLAGS=-mod=mod go mod tidy -e >/dev/null &&
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dest/coredns.tmp" .)
  mv "$dest/coredns.tmp" "$dest/coredns"
fi
tool_store_save "$key" "${outputs[@]}"
echo "node binaries installed in $dest"
