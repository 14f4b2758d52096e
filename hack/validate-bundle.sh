#!/usr/bin/env bash
# Validates the bundle with operator-sdk's operatorframework suite (OperatorHub
# metadata, capabilities, categories, good practices, deprecated APIs) and the catalog
# with opm. Fails on any error and on any warning.
#
# Note: the deprecated-API check warns about any RBAC rule for events.k8s.io/events
# (rules carry no version; operator-framework/api#378) unless the CSV declares the
# Event version it uses as a resource of the owned CRD: EC2Instance's marker
# +operator-sdk:csv:customresourcedefinitions:resources={{Event,v1}} does that.
#
# usage: hack/validate-bundle.sh OPERATOR_SDK OPM CATALOG_DIR
set -euo pipefail
operator_sdk=$1 opm=$2 catalog=$3

out=$("$operator_sdk" bundle validate ./bundle --select-optional suite=operatorframework 2>&1) || {
  echo "$out" >&2
  exit 1
}
echo "$out"
bad=$(echo "$out" | grep -E 'level=(warning|error)' || true)
if [[ -n "$bad" ]]; then
  echo "operator-sdk bundle validate reported warnings or errors:" >&2
  echo "$bad" >&2
  exit 1
fi

"$opm" validate "$catalog"
echo "bundle and catalog are valid"
