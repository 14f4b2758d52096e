#!/usr/bin/env bash
# Writes the file-based catalog (FBC) for the ec2-operator package: the package, its
# channel and the bundle in ./bundle rendered by opm (offline: opm reads the bundle
# directory instead of pulling the bundle image, then the image reference is set to
# the bundle image the catalog will point at).
#
# usage: hack/render-catalog.sh OPM CATALOG_DIR BUNDLE_IMG CHANNEL
set -euo pipefail
opm=$1 dir=$2 bundle_img=$3 channel=$4
package=ec2-operator
csv_name=$(sed -n 's/^  name: \(ec2-operator\.v.*\)$/\1/p' bundle/manifests/ec2-operator.clusterserviceversion.yaml)
[[ -n "$csv_name" ]] || { echo "cannot read the CSV name from bundle/manifests" >&2; exit 1; }

out="$dir/$package"
mkdir -p "$out"
{
  cat <<YAML
---
schema: olm.package
name: $package
defaultChannel: $channel
description: Manage AWS EC2 instances as Kubernetes resources.
icon:
  base64data: $(base64 -w0 docs/icon.svg)
  mediatype: image/svg+xml
---
schema: olm.channel
package: $package
name: $channel
entries:
- name: $csv_name
YAML
  # Rendering an image records the image in image: and in relatedImages; a directory
  # leaves both out, so add them.
  "$opm" render ./bundle --output yaml | sed \
    -e "s|^image: .*|image: $bundle_img|" \
    -e "s|^relatedImages:\$|relatedImages:\n- image: $bundle_img\n  name: \"\"|"
} > "$out/catalog.yaml.tmp"
mv "$out/catalog.yaml.tmp" "$out/catalog.yaml"
