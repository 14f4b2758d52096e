#!/usr/bin/env bash
# Writes the Roles and RoleBindings of the manager's own namespace
# (config/bundle/own-namespace) into the bundle as plain objects, one file each, named
# as operator-sdk names bundle files. operator-sdk would turn them into CSV
# permissions, which OLM copies into every target namespace and lifts to a ClusterRole
# for AllNamespaces; as bundle objects OLM creates them in the install namespace only.
#
# usage: hack/bundle-own-namespace-rbac.sh BUNDLE_DIR KUSTOMIZE
set -euo pipefail
bundle=$1 kustomize=$2
out=$bundle/manifests
[[ -d "$out" ]] || { echo "bundle-own-namespace-rbac: $out is not a directory" >&2; exit 1; }

"$kustomize" build config/bundle/own-namespace | awk -v out="$out" '
  function flush() {
    if (doc == "") return
    if (kind == "" || name == "") { print "bundle-own-namespace-rbac: an object without kind or name" > "/dev/stderr"; exit 1 }
    file = out "/" name "_rbac.authorization.k8s.io_v1_" tolower(kind) ".yaml"
    printf "%s", doc > file
    close(file)
    n++
    doc = ""; kind = ""; name = ""
  }
  /^---$/ { flush(); next }
  { doc = doc $0 "\n" }
  /^kind: / { kind = $2 }
  # metadata.name: kustomize sorts metadata before roleRef, whose name comes later.
  /^  name: / && name == "" { name = $2 }
  END { flush(); if (n != 4) { print "bundle-own-namespace-rbac: wrote " n " objects, want 4" > "/dev/stderr"; exit 1 } }
'
