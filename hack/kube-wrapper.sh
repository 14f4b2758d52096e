#!/usr/bin/env bash
# Sourced by the scripts that build Kubernetes commands from the k8s.io/kubernetes module
# (build-envtest-assets.sh, build-node-binaries.sh). It defines kube_wrapper, which writes
# a throwaway module that can build them, and kube_build, which builds one command.
#
# Kubernetes publishes its staging repositories (k8s.io/api, k8s.io/apiserver, ...) as
# modules versioned v0.<minor>.<patch>; k8s.io/kubernetes' own go.mod points them at
# ./staging, which a dependent module cannot use, so the wrapper points them at the
# published ones.

# kube_wrapper DIR K8S_VERSION CMD...: writes the wrapper module into DIR, blank-importing
# k8s.io/kubernetes/cmd/CMD for every CMD so that `go mod tidy` keeps their dependencies.
kube_wrapper() {
  local dir=$1 k8s_version=$2; shift 2
  local staging_version="v0.${k8s_version#*.}" kube_gomod
  echo ">> resolving k8s.io/kubernetes v${k8s_version}"
  kube_gomod=$(cd "$dir" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@v${k8s_version}" \
    | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  [[ -f "$kube_gomod" ]] || { echo "could not download k8s.io/kubernetes v${k8s_version}" >&2; return 1; }
  {
    echo "module kubewrapper"
    echo
    echo "go $(go env GOVERSION | sed 's/^go//; s/^\([0-9]*\.[0-9]*\).*/\1/')"
    echo
    echo "require k8s.io/kubernetes v${k8s_version}"
    echo
    grep -E '^[[:space:]]*k8s\.io/[^ ]+ => \./staging/' "$kube_gomod" \
      | awk -v v="$staging_version" '{print "replace " $1 " => " $1 " " v}'
  } >"$dir/go.mod"
  {
    echo "//go:build tools"
    echo
    echo "package tools"
    echo
    echo "import ("
    local cmd
    for cmd in "$@"; do echo "	_ \"k8s.io/kubernetes/cmd/$cmd\""; done
    echo ")"
  } >"$dir/tools.go"
  echo ">> go mod tidy (kube wrapper)"
  (cd "$dir" && GOFLAGS=-mod=mod go mod tidy -e >/dev/null)
}

# kube_build DIR K8S_VERSION OUTDIR CMD...: builds k8s.io/kubernetes/cmd/CMD for every
# CMD in the wrapper at DIR into OUTDIR, static and with the version flags set (otherwise
# they report v0.0.0-master). One `go build` for all of them: the commands share most of
# their packages, and one build compiles each package once and keeps both cores busy
# across the whole graph, where one build per command links and waits in turn.
kube_build() {
  local dir=$1 k8s_version=$2 outdir=$3 minor ldflags="" pkg cmd pkgs=()
  shift 3
  for cmd in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$cmd"); done
  minor=${k8s_version#*.}; minor=${minor%%.*}
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X ${pkg}.gitVersion=v${k8s_version} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor}"
    ldflags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
  done
  mkdir -p "$outdir"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -tags selinux,notest,grpcnotrace \
    -ldflags "-s -w${ldflags}" -o "$outdir/" "${pkgs[@]}")
}
