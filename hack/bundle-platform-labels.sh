#!/usr/bin/env bash
# Labels the generated CSV with the platforms the operator image is built for, as OLM
# and the OpenShift console read them (OLM's "Multiarch operators" convention:
# operatorframework.io/arch.<GOARCH> and operatorframework.io/os.<GOOS>, value
# "supported"). A CSV without them counts as linux/amd64 only, and the console does not
# offer the operator on Arm clusters. The platforms come from the same list that
# `make images` builds the image index from (IMAGE_PLATFORMS), so the two cannot part.
#
# usage: hack/bundle-platform-labels.sh BUNDLE_DIR PLATFORMS   (PLATFORMS: linux/amd64,linux/arm64)
set -euo pipefail
bundle=$1 platforms=$2
csv=$bundle/manifests/ec2-operator.clusterserviceversion.yaml

grep -q '^  name: ec2-operator\.v' "$csv" || { echo "$csv has no metadata.name" >&2; exit 1; }
if grep -q '^  labels:' "$csv"; then
  echo "bundle-platform-labels: $csv already has metadata.labels; labels belong here only" >&2
  exit 1
fi

declare -A oses=() arches=()
IFS=, read -ra list <<<"$platforms"
for p in "${list[@]}"; do
  [[ "$p" =~ ^([a-z0-9]+)/([a-z0-9]+)$ ]] || { echo "bundle-platform-labels: bad platform $p (want os/arch)" >&2; exit 1; }
  oses[${BASH_REMATCH[1]}]=1 arches[${BASH_REMATCH[2]}]=1
done

# metadata.labels sorts between annotations and name, as operator-sdk writes keys.
labels='  labels:'
for a in $(printf '%s\n' "${!arches[@]}" | sort); do labels+="\n    operatorframework.io/arch.$a: supported"; done
for o in $(printf '%s\n' "${!oses[@]}" | sort); do labels+="\n    operatorframework.io/os.$o: supported"; done
sed -i -e "s|^  name: ec2-operator\.v|$labels\n  name: ec2-operator.v|" "$csv"
