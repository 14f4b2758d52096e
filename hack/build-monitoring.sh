#!/usr/bin/env bash
# Builds the monitoring stack the cluster tests run in place of OpenShift's
# user-workload monitoring, as static binaries from Go modules (no registry can be
# reached, so there are no upstream images to pull):
#   prometheus                  github.com/prometheus/prometheus ./cmd/prometheus
#   prometheus-operator         github.com/prometheus-operator/prometheus-operator ./cmd/operator
#   prometheus-config-reloader  the same module, ./cmd/prometheus-config-reloader
#   service-ca                  cmd/devcluster/serviceca in this repository: a stand-in for
#                               OpenShift's service CA serving-cert signer and CA bundle
#                               injector (github.com/openshift/service-ca-operator is not
#                               served by the module proxy)
#
# Prometheus is built without the builtinassets tag: that tag embeds the web UI, which
# has to be generated with npm first (web/ui/build_ui.sh). Without it the HTTP API
# (/api/v1/...) works and only the UI pages are missing.
#
# Usage: hack/build-monitoring.sh [dest-dir]   (default bin/cluster/monitoring)
# Cached: a binary already present is not built again; delete it to rebuild.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/bin/cluster/monitoring}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

prometheus_module=github.com/prometheus/prometheus
prometheus_version=v0.316.0 # the Go module version of Prometheus 3.16.0 (bin/promtool-v0.316.0)
prometheus_release=3.16.0
operator_module=github.com/prometheus-operator/prometheus-operator
operator_version=v0.85.0 # newer versions of the main module are refused or fail go.sum here

# module_dir MODULE VERSION: downloads a module at a named version (the proxy refuses
# version lists of some modules; a named version downloads) and prints its directory.
module_dir() {
  local dir
  dir=$(go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  if [[ -z "$dir" ]]; then
    echo "could not download $1@$2" >&2
    exit 1
  fi
  echo "$dir"
}

# Every service discovery but Kubernetes's is left out (Prometheus's remove_all_sd and
# enable_<name>_sd build tags): prometheus-operator configures only kubernetes_sd_configs.
# The Makefile passes the same tags to promtool, so the two share compiled packages.
prometheus_tags=${PROMETHEUS_TAGS:-remove_all_sd,enable_kubernetes_sd}

# build DIR OUT LDFLAGS TAGS PACKAGE...: builds inside a module's directory, so its own
# go.mod and go.sum decide every dependency version. One package writes OUT; several
# write their binaries (named after their directories) into the directory OUT.
build() {
  local dir=$1 out=$2 ldflags=$3 tags=$4 start
  shift 4
  echo ">> building $* in $dir"
  start=$(date +%s)
  (
    cd "$dir"
    # Built as the project releases it, with the toolchain's crypto (the Makefile's
    # GOFIPS140 is for our own binaries and Kubernetes's).
    GOFLAGS=-buildvcs=false GOWORK=off CGO_ENABLED=0 GOFIPS140=off go build -trimpath ${tags:+-tags "$tags"} -ldflags "-s -w $ldflags" -o "$out" "$@"
  )
  echo "built $* in $(( $(date +%s) - start ))s"
}

common=github.com/prometheus/common/version
stamp() { echo "-X $common.Version=$1 -X $common.Revision=$2 -X $common.Branch=HEAD -X $common.BuildUser=ec2-operator -X $common.BuildDate=19700101-00:00:00"; }

source "$root/hack/tool-store.sh"
prometheus_key=$(GOFIPS140=off tool_store_key prometheus "$prometheus_version" "$prometheus_tags" "$root/hack/build-monitoring.sh")
operator_key=$(GOFIPS140=off tool_store_key prometheus-operator "$operator_version" "$root/hack/build-monitoring.sh")

if [[ -x "$dest/prometheus" ]]; then
  echo "prometheus already built in $dest"
elif ! tool_store_restore "$prometheus_key" "$dest/prometheus"; then
  build "$(module_dir "$prometheus_module" "$prometheus_version")" "$dest/prometheus.tmp" \
    "$(stamp "$prometheus_release" "$prometheus_version")" "$prometheus_tags" ./cmd/prometheus
  mv "$dest/prometheus.tmp" "$dest/prometheus"
  tool_store_save "$prometheus_key" "$dest/prometheus"
fi

if [[ -x "$dest/prometheus-operator" && -x "$dest/prometheus-config-reloader" ]]; then
  echo "prometheus-operator and prometheus-config-reloader already built in $dest"
elif ! tool_store_restore "$operator_key" "$dest/prometheus-operator" "$dest/prometheus-config-reloader"; then
  # The module's go.mod replaces its two nested modules (pkg/apis/monitoring,
  # pkg/client) with their directories, which a module zip leaves out: build in a copy
  # with those modules, at the same version, put back in place.
  work=$(mktemp -d)
  trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
  cp -r "$(module_dir "$operator_module" "$operator_version")" "$work/src"
  chmod -R u+w "$work/src"
  for nested in pkg/apis/monitoring pkg/client; do
    rm -rf "${work:?}/src/$nested"
    mkdir -p "$(dirname "$work/src/$nested")"
    cp -r "$(module_dir "$operator_module/$nested" "$operator_version")" "$work/src/$nested"
  done
  chmod -R u+w "$work/src"
  mkdir -p "$work/out"
  build "$work/src" "$work/out/" "$(stamp "${operator_version#v}" "$operator_version")" "" \
    ./cmd/operator ./cmd/prometheus-config-reloader
  mv "$work/out/operator" "$dest/prometheus-operator"
  mv "$work/out/prometheus-config-reloader" "$dest/prometheus-config-reloader"
  tool_store_save "$operator_key" "$dest/prometheus-operator" "$dest/prometheus-config-reloader"
fi

# The service CA stand-in is this repository's code: built every time (seconds, with
# the build cache), and replaced only when the binary changed, so that the node
# re-imports its image exactly when its code changed.
(cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dest/service-ca.tmp" ./cmd/devcluster/serviceca)
if cmp -s "$dest/service-ca.tmp" "$dest/service-ca"; then
  rm "$dest/service-ca.tmp"
else
  mv "$dest/service-ca.tmp" "$dest/service-ca"
  echo "built cmd/devcluster/serviceca into $dest/service-ca"
fi
