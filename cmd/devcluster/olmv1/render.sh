#!/usr/bin/env bash
# Re-renders cmd/devcluster/olmv1/olmv1.yaml from the operator-controller module's own
# kustomize config (the cert-manager overlay, the one upstream releases ship), then:
#   - drops cert-manager's Issuer/ClusterIssuer/Certificate objects and the CA-injection
#     annotation: the test creates the Secrets those Certificates would have produced
#     (see test/cluster/olmv1_helpers_test.go) and puts the CA into the webhook;
#   - points both images at the locally imported component images, IfNotPresent;
#   - mounts an optional ConfigMap olmv1-registries-conf at /etc/containers in both
#     managers: containers/image reads registries.conf there, which is how catalogd and
#     operator-controller are sent to a registry on the node (no registry is reachable).
# usage: cmd/devcluster/olmv1/render.sh   (needs bin/kustomize and python3 with PyYAML)
set -euo pipefail
cd "$(dirname "$0")/../../.."
version=${OLMV1_VERSION:-v1.2.0}
dir=$(go mod download -json "github.com/operator-framework/operator-controller@$version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
bin/kustomize build "$dir/config/overlays/cert-manager" |
  OLMV1_VERSION=$version python3 -c '
import os, sys, yaml
v = os.environ["OLMV1_VERSION"]
images = {"catalogd": "localhost/cluster/catalogd:" + v,
          "operator-controller-controller-manager": "localhost/cluster/operator-controller:" + v}
commands = {"catalogd": ["/catalogd"], "operator-controller-controller-manager": ["/operator-controller"]}
out = []
for d in yaml.safe_load_all(sys.stdin):
    if d is None or d["apiVersion"].startswith("cert-manager.io/"):
        continue
    ann = d["metadata"].get("annotations", {})
    ann.pop("cert-manager.io/inject-ca-from-secret", None)
    if d["kind"] == "Deployment":
        key = "catalogd" if d["metadata"]["name"].startswith("catalogd") else d["metadata"]["name"]
        pod = d["spec"]["template"]["spec"]
        c = pod["containers"][0]
        c["image"], c["imagePullPolicy"], c["command"] = images[key], "IfNotPresent", commands[key]
        c["volumeMounts"].append({"name": "registries-conf", "mountPath": "/etc/containers", "readOnly": True})
        pod["volumes"].append({"name": "registries-conf", "configMap": {"name": "olmv1-registries-conf", "optional": True}})
    out.append(d)
print("# OLM v1 (operator-controller and catalogd) " + v + ", rendered by cmd/devcluster/olmv1/render.sh")
print("# from the module'"'"'s config/overlays/cert-manager, without cert-manager (see render.sh).")
print("# Before the Deployments can start, create the Secrets olmv1-system/catalogd-service-cert-git-version")
print("# and olmv1-system/olmv1-cert (tls.crt, tls.key, ca.crt) and set the webhook'"'"'s caBundle.")
print(yaml.safe_dump_all(out, sort_keys=False, width=1000), end="")
' > cmd/devcluster/olmv1/olmv1.yaml
echo "wrote cmd/devcluster/olmv1/olmv1.yaml" >&2
