# ec2-operator Makefile.
#
# Every tool comes from the Go module proxy into ./bin at a pinned version, so the same
# targets work on a laptop, in CI and on machines that only reach a Go module proxy.

# VERSION is the operator's semantic version; the OLM bundle and the image use it.
VERSION ?= 0.1.0

# CHANNELS and DEFAULT_CHANNEL define the OLM channels of the bundle.
CHANNELS ?= alpha
DEFAULT_CHANNEL ?= alpha
BUNDLE_CHANNELS := --channels=$(CHANNELS)
BUNDLE_DEFAULT_CHANNEL := --default-channel=$(DEFAULT_CHANNEL)
BUNDLE_METADATA_OPTS ?= $(BUNDLE_CHANNELS) $(BUNDLE_DEFAULT_CHANNEL)

# OPENSHIFT_VERSIONS is the bundle's com.redhat.openshift.versions: "v4.17" lists the
# bundle in the catalogs of OpenShift 4.17 and later. OpenShift 4.17 ships Kubernetes
# 1.30, the CSV's minKubeVersion; test/olm checks that the two agree.
OPENSHIFT_VERSIONS ?= v4.17

# OPENSHIFT_API_VERSION is the openshift/api module whose console CRDs (ConsoleYAMLSample,
# ConsoleQuickStart) the tests install, so the bundle's console objects are checked
# against the schemas OpenShift's API server enforces and OLM can install them.
OPENSHIFT_API_VERSION ?= v0.0.0-20260204104751-e09e5a4ebcd0

# IMAGE_REPO is the registry and organisation of the release images. The bundle names
# the operator image there by digest, and the catalog the bundle image.
IMAGE_REPO ?= quay.io/ec2-operator
# IMAGE_TAG_BASE is the operator image's repository; the others add -bundle, -catalog
# and -scorecard.
IMAGE_TAG_BASE ?= $(IMAGE_REPO)/ec2-operator
BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)
BUNDLE_GEN_FLAGS ?= -q --overwrite --version $(VERSION) $(BUNDLE_METADATA_OPTS)
# IMG is the operator image by tag, for `make docker-build deploy` with an engine. The
# bundle does not use it: it names the image that `make images` builds, by digest.
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)

# ENVTEST_K8S_VERSION is the Kubernetes version of the test control plane. It matches
# the k8s.io libraries in go.mod (v0.37.x); ETCD_VERSION is the etcd that version targets.
ENVTEST_K8S_VERSION ?= 1.37.2
ETCD_VERSION ?= 3.7.3
# ENVTEST_MIN_K8S_VERSION is the oldest Kubernetes the bundle supports: the CSV's
# minKubeVersion, the Kubernetes of OpenShift 4.17 (com.redhat.openshift.versions).
# The API tests run against it too, since CEL functions and cost budgets differ by
# version and a CRD the oldest API server rejects is a broken install there.
ENVTEST_MIN_K8S_VERSION ?= 1.30.14

CONTAINER_TOOL ?= docker

# Every go command here compiles with -trimpath and without cgo, as the release images,
# the manager the e2e tests start and every tool under bin/ are built: Go's build cache
# keys a compiled package on its flags and its dependencies, and cgo changes package
# net and so everything above it. With one setting the operator's dependencies
# (Kubernetes, controller-runtime, the AWS SDK) are compiled once, and the envtest
# kube-apiserver's build compiles much of Kubernetes for the tests too; a fresh
# machine's make test compiled them twice. Nothing here needs cgo (only net, os/user
# and runtime/cgo have cgo files among our dependencies). GOFLAGS keeps what go env
# sets already.
export GOFLAGS := $(strip $(filter-out -trimpath,$(shell go env GOFLAGS)) -trimpath)
export CGO_ENABLED ?= 0
# GOFIPS140 is the Go Cryptographic Module (FIPS 140-3) our binaries are built with:
# the snapshot Go lists as certified, by its exact name (docs/security.md, "FIPS"); empty builds
# them with the toolchain's own crypto. Every go command here uses it, not only the
# images: the images reuse what make test compiled, and the e2e manager runs in the
# FIPS mode the images ship (fips140=on). Test processes that probe TLS servers run in
# standard mode (//go:debug fips140=off in their fipsmode_test.go). The setting replaces crypto's sources,
# so a different one recompiles everything that imports crypto: on a fresh machine the
# images' operator, scorecard and must-gather binaries compiled the operator's whole
# dependency tree again, twice in CI (the node suite's images and test-release's).
# Kubernetes's control plane and node binaries (envtest, cmd/devcluster) inherit it too,
# since they share most of client-go and apimachinery with the tests; third-party
# tools are built as their projects release them (hack/build-go-tool.sh).
export GOFIPS140 ?= v1.0.0-c2097c7c

# Setting SHELL to bash allows bash commands to be executed by recipes.
SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-20s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen crd-ref-docs ## Generate the CRD and RBAC manifests from the Go markers, and the API reference (docs/api-reference.md).
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd webhook paths="./api/...;./cmd/...;./internal/..." output:crd:artifacts:config=config/crd/bases
	go run ./cmd/crdtemplate config/crd/bases/compute.ec2-operator.dev_ec2instancesets.yaml spec.template.spec
	@$(CRD_REF_DOCS) --source-path=./api --config=hack/api-reference.yaml --renderer=markdown \
		--output-path=docs/api-reference.md --log-level=ERROR

.PHONY: generate
generate: controller-gen ## Generate DeepCopy methods from the Go types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/...;./cmd/...;./internal/..."

.PHONY: fmt
fmt: ## Run go fmt against code.
	go fmt ./...

.PHONY: vet
vet: ## Run go vet against code.
	go vet ./...

.PHONY: verify-generated
verify-generated: controller-gen crd-ref-docs ## Fail when generated files (deepcopy, CRDs, RBAC, the API reference) are stale.
	CONTROLLER_GEN=$(CONTROLLER_GEN) CRD_REF_DOCS=$(CRD_REF_DOCS) hack/verify-generated.sh

.PHONY: verify-headers
verify-headers: ## Fail when a Go file lacks the licence header of hack/boilerplate.go.txt, or a blank line after it (hack/license-headers.sh --fix adds a missing header).
	hack/license-headers.sh

.PHONY: verify-fmt
verify-fmt: ## Fail when gofmt would change a file.
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bin/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# TEST_FLAGS are extra flags for go test, e.g. TEST_FLAGS="-run TestValidation -v".
TEST_FLAGS ?=
# TEST_LDFLAGS: test binaries are linked without DWARF (-w), which nothing in a test
# run reads (stack traces come from the symbol table): about 1.3 s less per binary, some
# 35 binaries per make test. A debugger needs DWARF: TEST_LDFLAGS= make test, or go test.
TEST_LDFLAGS ?= -w

# The tests come in tiers, as in kubebuilder (make test, make test-e2e) and cluster-api
# (unit and envtest in make test, e2e apart). CONTRIBUTING.md says which to run when.
#   make test-unit  no API server, emulator process or image: the edit loop, < 1 min warm.
#   make test       the README's test command: unit, envtest + the EC2 emulator, and e2e
#                   with the manager binary. Everything a change to the operator needs.
#   CI adds the release and install-path checks, each its own target: test-min-kube,
#   test-olm, verify-olm, test-release, test-cluster, verify-images-reproducible and,
#   on a release commit, verify-release.
# TEST_PACKAGES leaves out the suites of the release tier (test/olm and test/chart run
# in make test-olm, test/release in make test-release), so make test needs no image,
# OLM or Helm build. test/bench comes first: go test starts packages in the order it is
# given them and prints their results in that order, so the pacing tests (call
# ceilings with EC2's limits enforced on the wall clock) run while the machine is not
# yet shared, and CI can start the real-node suite as soon as their line is printed.
TEST_PACKAGES = ./test/bench $$(go list ./... | grep -v -e '/test/olm$$' -e '/test/chart$$' -e '/test/release$$' -e '/test/bench$$')
# The unit tier skips the suites under test/ (each starts an API server) and, with
# -short, every test that calls testenv.SkipInUnitTier; testenv.Start fails under
# -short, so a test that needs an API server cannot slip into this tier unmarked.
UNIT_TEST_PACKAGES = $$(go list ./... | grep -v '/test/')

.PHONY: test-unit
test-unit: verify-fmt ## Run the tests that need no API server, emulator process or image (go test -short).
	go test -short $(UNIT_TEST_PACKAGES) -ldflags="$(TEST_LDFLAGS)" $(TEST_FLAGS)

.PHONY: test
# make test runs go vet's full set of analyzers over every package and its tests (the
# vet prerequisite), so go test's own vet pass, a subset of them, is turned off: vet
# computes its facts for every dependency, and go keys them by the analyzers asked
# for, so the second pass repeated that work for the whole module graph on a cold cache.
test: verify-fmt verify-headers vet verify-generated setup-envtest ## Run the unit, envtest + EC2 emulator and e2e tests (the README's test command).
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -i -p path)" \
		go test $(TEST_PACKAGES) -vet=off -coverprofile cover.out -timeout 20m -ldflags="$(TEST_LDFLAGS)" $(TEST_FLAGS)

# test-min-kube runs the API tests (OpenAPI and CEL validation, defaults, printer
# columns) against the oldest supported kube-apiserver; EXPECT_KUBE_VERSION makes them
# fail if another version answers.
# release-notes prints the CHANGELOG.md section of RELEASE_NOTES_VERSION (default: the
# Unreleased one, which a release renames to its version) for the release's notes.
RELEASE_NOTES_VERSION ?= Unreleased
.PHONY: release-notes
release-notes: ## Print CHANGELOG.md's section of RELEASE_NOTES_VERSION (default Unreleased), for a release's notes.
	@awk -v want='## [$(RELEASE_NOTES_VERSION)]' 'index($$0, "## [") == 1 { inside = (index($$0, want) == 1); next } inside' CHANGELOG.md | \
		sed -e '/./,$$!d' | grep . >/dev/null || { echo "CHANGELOG.md has no section [$(RELEASE_NOTES_VERSION)]" >&2; exit 1; }
	@awk -v want='## [$(RELEASE_NOTES_VERSION)]' 'index($$0, "## [") == 1 { inside = (index($$0, want) == 1); next } inside' CHANGELOG.md | sed -e '/./,$$!d'

.PHONY: test-min-kube
test-min-kube: setup-envtest-min ## Run the API validation tests against the oldest supported Kubernetes (ENVTEST_MIN_K8S_VERSION).
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_MIN_K8S_VERSION) --bin-dir $(LOCALBIN) -i -p path)" \
	EXPECT_KUBE_VERSION=$(ENVTEST_MIN_K8S_VERSION) go test ./api/... -count=1 $(TEST_FLAGS)

# test-olm checks the generated OLM bundle, the install manifests and the Helm chart
# against kustomize's output, a real API server, promtool and helm.
.PHONY: test-olm
test-olm: setup-envtest kustomize promtool helm ## Run the bundle, install-manifest and Helm chart tests (test/olm, test/chart).
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -i -p path)" \
		go test ./test/olm ./test/chart -count=1 -timeout 20m $(TEST_FLAGS)

# test-release runs the release images built from these sources (make images) as a
# cluster meets them: OLM's operators install the staged catalog, the images run as
# their own users, survive a push and a pull by digest, in both platforms.
.PHONY: test-release
test-release: setup-envtest images olm-tools preflight ## Run the release image tests (test/release) on images built now and manifests staged for them.
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -i -p path)" \
	IMAGES_DIR=$(IMAGES_DIR) RELEASE_MANIFESTS=$(STAGE_DIR) OLM_CATALOG=$(OLM_CATALOG) OLM_OPERATOR=$(OLM_OPERATOR) PREFLIGHT=$(PREFLIGHT) \
		go test ./test/release -count=1 -timeout 30m $(TEST_FLAGS)

# BENCH_SCENARIOS selects bulk scenarios by name, e.g. BENCH_SCENARIOS=unthrottled.
BENCH_SCENARIOS ?=

.PHONY: bench
bench: setup-envtest ## Count AWS calls, apiserver writes and memory for bulk create/restart/delete (N=100, 1,000) and at rest.
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -i -p path)" \
	BENCH=1 BENCH_SCENARIOS="$(BENCH_SCENARIOS)" go test ./test/bench/ -run '^TestBench(FairShare)?$$' -count=1 -timeout 30m -v 2>&1 | \
		grep -E '^\||^(ok|FAIL|---)|bench_test.go|fairshare_test.go'
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -i -p path)" \
		go test ./internal/... -run '^$$' -bench . -skip 'OutOfBandChangeSeenThroughEvents' -benchtime 3x -timeout 30m
	@echo "How soon a stop or termination made outside Kubernetes shows in status through EC2 events (40 trials at the shipped periods):"
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -i -p path)" \
		go test ./internal/controller/ -run '^$$' -bench 'OutOfBandChangeSeenThroughEvents$$' -benchtime 1x -timeout 30m
	@echo "At rest, 1,000 instances, EC2 events off and on (DescribeInstances per instance per hour at the default resync periods):"
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -i -p path)" BENCH_FLEET=1000 \
		go test ./internal/controller/ -run '^$$' -bench 'SteadyState(DescribeCallsPerInstance|WithEvents)$$' -benchtime 1x -timeout 30m

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary and the kubectl-ec2 plugin.
	go build -o bin/manager ./cmd
	go build -o bin/kubectl-ec2 ./cmd/kubectl-ec2

.PHONY: run
run: manifests generate fmt vet ## Run the manager against the cluster in ~/.kube/config and real AWS.
	go run ./cmd

.PHONY: sandbox
sandbox: build setup-envtest ## Run everything locally: kube-apiserver, etcd, the EC2 emulator, the manager and the sample. Ctrl-C stops it.
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -i -p path)" \
		go run ./cmd/sandbox $(SANDBOX_FLAGS)

.PHONY: ec2sim
ec2sim: ## Run the EC2 emulator alone on 127.0.0.1:8787.
	go run ./cmd/ec2sim

.PHONY: docker-build
docker-build: ## Build the manager image (needs a container engine).
	$(CONTAINER_TOOL) build --build-arg VERSION=$(VERSION) --build-arg REVISION=$$(git rev-parse HEAD) -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the manager image.
	$(CONTAINER_TOOL) push $(IMG)

##@ Deployment

ifndef ignore-not-found
  ignore-not-found = false
endif

# make deploy and build-installer render config/default through a throwaway overlay in
# bin/ (ignored by git), so that neither edits a tracked file. Without IMG on the
# command line they install the operator image config/manager pins by digest (make
# bundle sets that pin); IMG=<registry>/ec2-operator@sha256:<digest> (or :<tag>, for
# a build of your own) replaces it in the overlay only.
DEPLOY_OVERLAY ?= $(LOCALBIN)/deploy-overlay
DEPLOY_IMAGE = $(if $(filter command line environment,$(origin IMG)),$(IMG))

.PHONY: deploy-overlay
deploy-overlay: manifests kustomize
	@rm -rf $(DEPLOY_OVERLAY) && mkdir -p $(DEPLOY_OVERLAY)
	@printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- %s\n' \
		"$$(realpath --relative-to=$(DEPLOY_OVERLAY) config/default)" > $(DEPLOY_OVERLAY)/kustomization.yaml
	@if [ -n "$(DEPLOY_IMAGE)" ]; then cd $(DEPLOY_OVERLAY) && $(KUSTOMIZE) edit set image $(IMAGE_TAG_BASE)=$(DEPLOY_IMAGE); fi

# dist/install.yaml is the release's install without OLM (kubectl apply -f), and
# dist/chart the same objects as a Helm chart (cmd/helmchart templates kustomize's
# output; no second source of truth). Both are generated like the bundle and checked
# like it: make test fails when they are not what build-installer writes now.
.PHONY: build-installer
build-installer: deploy-overlay ## Write dist/install.yaml and the Helm chart dist/chart, the operator image pinned by digest.
	@mkdir -p dist
	$(KUSTOMIZE) build $(DEPLOY_OVERLAY) > dist/install.yaml
	go run ./cmd/helmchart --install dist/install.yaml --version $(VERSION) --out dist/chart

.PHONY: install
install: manifests kustomize ## Install the CRDs into the cluster in ~/.kube/config.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply -f -

.PHONY: uninstall
uninstall: manifests kustomize ## Uninstall the CRDs from the cluster in ~/.kube/config.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

.PHONY: deploy
deploy: deploy-overlay ## Deploy the operator to the cluster in ~/.kube/config (the pinned image, or IMG=...).
	$(KUSTOMIZE) build $(DEPLOY_OVERLAY) | $(KUBECTL) apply -f -

.PHONY: undeploy
undeploy: kustomize ## Remove the operator from the cluster in ~/.kube/config.
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

##@ Dependencies

## Location to install dependencies to
LOCALBIN ?= $(shell pwd)/bin
$(LOCALBIN):
	mkdir -p $(LOCALBIN)

## Tool binaries
KUBECTL ?= kubectl
KUSTOMIZE ?= $(LOCALBIN)/kustomize
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
CRD_REF_DOCS ?= $(LOCALBIN)/crd-ref-docs
ENVTEST ?= $(LOCALBIN)/setup-envtest

## Tool versions. setup-envtest is pinned to a release, not a branch: a branch query
## needs the proxy's version list, which some proxies refuse.
KUSTOMIZE_VERSION ?= v5.8.2
CONTROLLER_TOOLS_VERSION ?= v0.23.0
CRD_REF_DOCS_VERSION ?= v0.3.0
ENVTEST_VERSION ?= v0.25.1

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Download kustomize locally if necessary.
$(KUSTOMIZE): $(LOCALBIN)
	$(call go-install-tool,$(KUSTOMIZE),sigs.k8s.io/kustomize/kustomize/v5,$(KUSTOMIZE_VERSION))

# crd-ref-docs writes the API reference from the Go types and their markers.
.PHONY: crd-ref-docs
crd-ref-docs: $(CRD_REF_DOCS) ## Build crd-ref-docs into bin/ if necessary.
$(CRD_REF_DOCS): $(LOCALBIN)
	$(call go-install-tool,$(CRD_REF_DOCS),github.com/elastic/crd-ref-docs,$(CRD_REF_DOCS_VERSION))

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Download controller-gen locally if necessary.
$(CONTROLLER_GEN): $(LOCALBIN)
	$(call go-install-tool,$(CONTROLLER_GEN),sigs.k8s.io/controller-tools/cmd/controller-gen,$(CONTROLLER_TOOLS_VERSION))

# helm lints the chart in dist/chart and renders it for the test that compares it with
# kustomize's output (test/chart). Built from its Go module like the other tools.
HELM ?= $(LOCALBIN)/helm
HELM_VERSION ?= v4.3.2

.PHONY: helm
helm: $(HELM) ## Build helm into bin/ if necessary (about 2 minutes once).
$(HELM): $(LOCALBIN)
	$(call go-install-tool,$(HELM),helm.sh/helm/v4/cmd/helm,$(HELM_VERSION))

# promtool runs the alert rules' unit tests (test/olm/testdata/alerts.test.yaml).
# Prometheus v3's Go module versions are v0.3xx; v0.316.0 is Prometheus 3.16.
PROMTOOL ?= $(LOCALBIN)/promtool
PROMTOOL_VERSION ?= v0.316.0
PROMETHEUS_RELEASE ?= 3.16.0

# PROMETHEUS_TAGS leave out every service discovery but Kubernetes (Prometheus's own
# remove_all_sd and enable_<name>_sd build tags): promtool's rule tests need none, the
# cluster's Prometheus only the Kubernetes one that prometheus-operator configures. The
# others (Azure, GCE, OpenStack, Consul, ...) were most of a cold build's compiling.
export PROMETHEUS_TAGS ?= remove_all_sd,enable_kubernetes_sd
# It is built inside the Prometheus module with the flags and tags
# hack/build-monitoring.sh uses for the cluster's prometheus (-trimpath, no cgo), so the
# two share their compiled packages instead of compiling Prometheus twice.
.PHONY: promtool
promtool: $(PROMTOOL) ## Build promtool into bin/ if necessary (about 2 minutes once).
$(PROMTOOL): | $(LOCALBIN)
	hack/build-go-tool.sh $(PROMTOOL) github.com/prometheus/prometheus $(PROMTOOL_VERSION) ./cmd/promtool 0 "$(PROMETHEUS_TAGS)" \
		"-X github.com/prometheus/common/version.Version=$(PROMETHEUS_RELEASE) -X github.com/prometheus/common/version.Revision=$(PROMTOOL_VERSION)"

.PHONY: envtest
envtest: $(ENVTEST) ## Download setup-envtest locally if necessary.
$(ENVTEST): $(LOCALBIN)
	$(call go-install-tool,$(ENVTEST),sigs.k8s.io/controller-runtime/tools/setup-envtest,$(ENVTEST_VERSION))

# setup-envtest puts kube-apiserver, etcd and kubectl in bin/k8s/<version>-<os>-<arch>.
# It reuses what is there, then tries setup-envtest's normal download (what users'
# machines do), and when that fails (no route to GitHub) builds the same versions from
# the Go module proxy with hack/build-envtest-assets.sh.
.PHONY: setup-envtest
setup-envtest: envtest ## Install the envtest control plane binaries (download, or build from source offline).
	$(call setup-envtest-version,$(ENVTEST_K8S_VERSION))

# The oldest version's control plane only serves API tests; when it is built, it takes
# kubectl (envtest does not run it) and etcd (the same release) from the main one
# instead of building them again, when that one exists.
ENVTEST_MAIN_DIR = $(LOCALBIN)/k8s/$(ENVTEST_K8S_VERSION)-$$(go env GOOS)-$$(go env GOARCH)
ENVTEST_MIN_FROM_MAIN = KUBECTL_FROM=$(ENVTEST_MAIN_DIR)/kubectl ETCD_FROM=$(ENVTEST_MAIN_DIR)/etcd
.PHONY: setup-envtest-min
setup-envtest-min: setup-envtest ## Install the oldest supported Kubernetes's envtest binaries (download, or build offline).
	$(call setup-envtest-version,$(ENVTEST_MIN_K8S_VERSION),$(ENVTEST_MIN_FROM_MAIN))

# setup-envtest-version installs one Kubernetes version's control plane ($1); $2 is
# extra environment for the build script.
define setup-envtest-version
@if $(ENVTEST) use $(1) --bin-dir $(LOCALBIN) -i -p path >/dev/null 2>&1; then \
	echo "envtest $(1): using $$($(ENVTEST) use $(1) --bin-dir $(LOCALBIN) -i -p path)"; \
elif $(ENVTEST) use $(1) --bin-dir $(LOCALBIN) -p path >/dev/null 2>&1; then \
	echo "envtest $(1): downloaded"; \
else \
	echo "envtest $(1): download failed; building it from Go modules"; \
	$(2) hack/build-envtest-assets.sh $(1) $(LOCALBIN) $(ETCD_VERSION); \
fi
endef

# go-install-tool will 'go install' any package with custom target and name of binary, if it doesn't exist
# $1 - target path with name of binary
# $2 - package url which can be installed
# $3 - specific version of package
define go-install-tool
@[ -f "$(1)-$(3)" ] && [ "$$(readlink -- "$(1)" 2>/dev/null)" = "$$(realpath "$(1)-$(3)")" ] || { \
set -e; \
package=$(2)@$(3) ;\
echo "Downloading $${package}" ;\
rm -f $(1) ;\
GOBIN=$(LOCALBIN) go install $${package} ;\
mv $(1) $(1)-$(3) ;\
} ;\
ln -sf $$(realpath $(1)-$(3)) $(1)
endef

##@ OLM bundle, catalog and scorecard
#
# These tools cannot be `go install`ed here (the module proxy refuses their version lists
# and their go.mod files have replace directives), so hack/build-go-tool.sh downloads the
# pinned module and builds the command inside it, once, into bin/<tool>-<version>.
# Cold builds on 2 cores: operator-sdk ~7 min, scorecard-test ~1.5 min after it (shared
# build cache), opm ~3.5 min.

OPERATOR_SDK ?= $(LOCALBIN)/operator-sdk
OPM ?= $(LOCALBIN)/opm
SCORECARD_TEST ?= $(LOCALBIN)/scorecard-test
OPERATOR_SDK_VERSION ?= v1.42.2
OPM_VERSION ?= v1.61.0
OPERATOR_SDK_LDFLAGS = -X github.com/operator-framework/operator-sdk/internal/version.Version=$(OPERATOR_SDK_VERSION) \
	-X github.com/operator-framework/operator-sdk/internal/version.GitVersion=$(OPERATOR_SDK_VERSION) \
	-X github.com/operator-framework/operator-sdk/internal/version.ImageVersion=$(OPERATOR_SDK_VERSION) \
	-X github.com/operator-framework/operator-sdk/internal/version.KubernetesVersion=v1.33.0

# BUNDLE_CREATED_AT is the release date of VERSION: the CSV's createdAt annotation and
# the creation time of every release image (SOURCE_DATE_EPOCH overrides it for the
# images). operator-sdk stamps the current time; the bundle target replaces it with this
# fixed value so that `make bundle` is reproducible. Update it together with VERSION.
BUNDLE_CREATED_AT ?= 2026-11-30T00:00:00Z
# CATALOG_DIR holds the file-based catalog (FBC) of the ec2-operator package.
CATALOG_DIR ?= catalog

.PHONY: operator-sdk
operator-sdk: $(OPERATOR_SDK) ## Build operator-sdk into bin/ if necessary.
$(OPERATOR_SDK): | $(LOCALBIN)
	hack/build-go-tool.sh $(OPERATOR_SDK) github.com/operator-framework/operator-sdk $(OPERATOR_SDK_VERSION) \
		./cmd/operator-sdk 0 containers_image_openpgp "$(OPERATOR_SDK_LDFLAGS)"

.PHONY: scorecard-test
scorecard-test: $(SCORECARD_TEST) ## Build the scorecard-test program (the tests inside the scorecard image) into bin/.
$(SCORECARD_TEST): | $(LOCALBIN)
	hack/build-go-tool.sh $(SCORECARD_TEST) github.com/operator-framework/operator-sdk $(OPERATOR_SDK_VERSION) \
		./images/scorecard-test 0 containers_image_openpgp

# preflight is Red Hat's certification check of container images (`preflight check
# container`); test/release runs it against the operator image in a local registry.
PREFLIGHT ?= $(LOCALBIN)/preflight
PREFLIGHT_VERSION ?= v1.14.1

.PHONY: preflight
preflight: $(PREFLIGHT) ## Build Red Hat's preflight into bin/ if necessary.
$(PREFLIGHT): | $(LOCALBIN)
	hack/build-go-tool.sh $(PREFLIGHT) github.com/redhat-openshift-ecosystem/openshift-preflight $(PREFLIGHT_VERSION) \
		./cmd/preflight 0 "" "-X github.com/redhat-openshift-ecosystem/openshift-preflight/version.version=$(PREFLIGHT_VERSION)"

# opm is built static (no cgo) by cmd/images, the same binary the catalog image
# carries for this machine's platform.
.PHONY: opm
opm: images-tool | $(LOCALBIN) ## Build opm into bin/ if necessary.
	@ln -sf "$$($(IMAGES_TOOL) tool $(IMAGES_FLAGS) opm)" $(OPM)

# RELEASE_PINS names the last release's operator, scorecard and must-gather images by
# digest. The committed bundle, catalog, install.yaml and chart name those between
# releases, so a change to the operator's sources changes none of them; make release
# writes the file at a release, and make images stages manifests pinned to the images
# built now for the tests that install them.
RELEASE_PINS ?= config/release/images.env
# STAGE_DIR holds those staged manifests (bundle/, catalog/, dist/ and their Dockerfiles).
STAGE_DIR ?= $(LOCALBIN)/stage

# The bundle names the operator, scorecard and must-gather images of RELEASE_PINS.
.PHONY: bundle
bundle: manifests kustomize operator-sdk ## Generate the OLM bundle (bundle/, bundle.Dockerfile) from config/, pinned to the release images (RELEASE_PINS), and validate it.
	$(OPERATOR_SDK) generate kustomize manifests -q --interactive=false
	source $(RELEASE_PINS) && \
	operator=$$OPERATOR_IMAGE && scorecard=$$SCORECARD_IMAGE && mustgather=$$MUST_GATHER_IMAGE && \
	(cd config/manager && $(KUSTOMIZE) edit set image controller=$$operator) && \
	rm -rf bundle/manifests bundle/metadata bundle/tests && \
	$(KUSTOMIZE) build config/manifests | $(OPERATOR_SDK) generate bundle $(BUNDLE_GEN_FLAGS) && \
	hack/bundle-own-namespace-rbac.sh bundle $(KUSTOMIZE) && \
	hack/openshift-bundle-metadata.sh bundle bundle.Dockerfile "$(OPENSHIFT_VERSIONS)" && \
	hack/pin-bundle.sh bundle "$(BUNDLE_CREATED_AT)" "$$operator" "$$scorecard" "$$mustgather" && \
	hack/bundle-platform-labels.sh bundle "$(IMAGE_PLATFORMS)"
	$(OPERATOR_SDK) bundle validate ./bundle --select-optional suite=operatorframework
	@# The install without OLM pins the same image: dist/install.yaml follows the bundle.
	$(MAKE) --no-print-directory -s build-installer DEPLOY_IMAGE=

.PHONY: bundle-build
bundle-build: ## Build the bundle image (needs a container engine).
	$(CONTAINER_TOOL) build -f bundle.Dockerfile -t $(BUNDLE_IMG) .

.PHONY: bundle-push
bundle-push: ## Push the bundle image.
	$(CONTAINER_TOOL) push $(BUNDLE_IMG)

# The catalog is rendered from opm's basic template (CATALOG_TEMPLATE: the package, the
# channel whose entries replace one another, one bundle image per release); the last
# bundle entry is pinned to the digest of the bundle image built from bundle/. opm pulls
# the bundles from an in-process registry that serves BUNDLE_LAYOUTS (the bundle just
# built, and earlier releases' bundles when their OCI layouts are given).
CATALOG_TEMPLATE ?= config/catalog/ec2-operator.template.yaml
# The bundle image of the committed bundle/ goes to its own directory: bin/images holds
# the one built from the staged manifests.
CATALOG_BUNDLE_DIR ?= $(LOCALBIN)/catalog-bundle
BUNDLE_LAYOUTS ?= $(CATALOG_BUNDLE_DIR)/bundle
.PHONY: catalog
catalog: opm images-tool ## Render the file-based catalog (catalog/) from its template for the bundle image built from bundle/, and validate it.
	$(IMAGES_TOOL) build $(IMAGES_FLAGS) --out $(CATALOG_BUNDLE_DIR) bundle
	$(IMAGES_TOOL) render-catalog $(IMAGES_FLAGS) --opm-bin $(OPM) --template $(CATALOG_TEMPLATE) \
		--catalog $(CATALOG_DIR)/ec2-operator/catalog.yaml --pin-current $(BUNDLE_LAYOUTS)
	$(OPM) validate $(CATALOG_DIR)
	rm -f catalog.Dockerfile
	$(OPM) generate dockerfile $(CATALOG_DIR) -i $(OPM_IMG) -b $(OPM_IMG)

# CATALOG_IMG is the catalog image that serves catalog/; OPM_IMG is the opm image it
# builds on (pinned to the opm version that renders and validates the catalog).
CATALOG_IMG ?= $(IMAGE_TAG_BASE)-catalog:v$(VERSION)
OPM_IMG ?= quay.io/operator-framework/opm:$(OPM_VERSION)

.PHONY: catalog-build
catalog-build: ## Build the catalog image from catalog/ (needs a container engine).
	$(CONTAINER_TOOL) build -f catalog.Dockerfile -t $(CATALOG_IMG) .

.PHONY: catalog-push
catalog-push: ## Push the catalog image.
	$(CONTAINER_TOOL) push $(CATALOG_IMG)

.PHONY: verify-bundle
verify-bundle: kustomize operator-sdk opm ## Fail when `make bundle catalog` would change bundle/, catalog/, dist/ (install.yaml, the chart) or the base CSV.
	LOCALBIN=$(LOCALBIN) hack/verify-bundle.sh

# A release is one commit: make release VERSION=x.y.z BUNDLE_CREATED_AT=<date> builds
# the images, writes their digests into RELEASE_PINS and regenerates everything that
# names them (docs/releasing.md). CI runs verify-release on a commit that changes
# RELEASE_PINS: the images built from that commit must be the ones it pins.
.PHONY: release
release: images-tool ## Pin a release: build the images, write RELEASE_PINS, regenerate bundle/, catalog/ and dist/.
	$(IMAGES_TOOL) build $(IMAGES_FLAGS) operator scorecard must-gather
	hack/write-release-pins.sh $(RELEASE_PINS) $(IMAGES_TOOL) $(IMAGES_DIR) $(IMAGE_TAG_BASE)
	$(MAKE) --no-print-directory bundle catalog

.PHONY: verify-release
verify-release: images-tool ## Fail unless RELEASE_PINS names the images built from these sources (a release commit).
	$(IMAGES_TOOL) build $(IMAGES_FLAGS) operator scorecard must-gather
	hack/write-release-pins.sh --check $(RELEASE_PINS) $(IMAGES_TOOL) $(IMAGES_DIR) $(IMAGE_TAG_BASE)

.PHONY: validate-bundle
validate-bundle: operator-sdk opm ## operator-sdk bundle validate (operatorframework suite) and opm validate, 0 errors and 0 warnings.
	hack/validate-bundle.sh $(OPERATOR_SDK) $(OPM) $(CATALOG_DIR)

.PHONY: scorecard
scorecard: scorecard-test ## Run the bundle's scorecard tests (bundle/tests/scorecard/config.yaml) offline.
	SCORECARD_TEST=$(SCORECARD_TEST) go test ./test/olm/ -tags scorecard -run TestScorecard -count=1 -v

.PHONY: verify-olm
verify-olm: verify-bundle validate-bundle scorecard ## All OLM checks that need operator-sdk, opm and scorecard-test (CI runs it after make test).

##@ Release images (no container engine needed)
#
# cmd/images builds the operator, scorecard-test, must-gather, bundle and catalog
# images from Go modules into OCI layouts (bin/images/<name>/index.json),
# reproducibly: the same commit gives the same digests on any machine. The Dockerfile targets above build the
# same content for those who have an engine.

IMAGES_DIR ?= $(LOCALBIN)/images
IMAGES_TOOL ?= $(LOCALBIN)/images-tool
# IMAGE_PLATFORMS are the platforms of every release image.
IMAGE_PLATFORMS ?= linux/amd64,linux/arm64
# SOURCE_REVISION, when set, replaces the git history as the images' revision.
export SOURCE_REVISION
IMAGES_FLAGS = --root $(CURDIR) --out $(IMAGES_DIR) --bin $(LOCALBIN) --version $(VERSION) --created $(BUNDLE_CREATED_AT) \
	--repo $(IMAGE_REPO) --platforms $(IMAGE_PLATFORMS) --opm-version $(OPM_VERSION) --gofips140 "$(GOFIPS140)"

.PHONY: images-tool
images-tool: | $(LOCALBIN) ## Build cmd/images, the engine-free image builder.
	@go build -o $(IMAGES_TOOL) ./cmd/images

# krew builds kubectl-ec2 for every platform krew serves into reproducible archives,
# and the krew plugin manifest that names them (bin/krew/ec2.yaml), for a release to
# publish the archives and submit the manifest to krew-index (docs/releasing.md).
.PHONY: krew
krew: images-tool ## Archive kubectl-ec2 for linux, darwin and windows and write its krew plugin manifest into bin/krew.
	$(IMAGES_TOOL) krew $(IMAGES_FLAGS) --krew-out $(LOCALBIN)/krew

# make images builds the operator, scorecard and must-gather images from the current
# sources, stages the manifests pinned to them (hack/stage-release.sh, STAGE_DIR), and
# builds the bundle and catalog images from the staged manifests, so that the catalog
# installs exactly what was built. At a release commit the staged manifests are the
# committed ones, byte for byte.
.PHONY: images
images: images-tool opm ## Build the release images as OCI layouts in bin/images, the bundle and catalog from manifests staged for them (bin/stage).
	$(IMAGES_TOOL) build $(IMAGES_FLAGS) operator scorecard must-gather
	hack/stage-release.sh $(STAGE_DIR) $(RELEASE_PINS) $(IMAGES_TOOL) $(IMAGES_DIR)
	$(IMAGES_TOOL) build $(IMAGES_FLAGS) --manifests $(STAGE_DIR) bundle
	$(IMAGES_TOOL) render-catalog $(IMAGES_FLAGS) --manifests $(STAGE_DIR) --opm-bin $(OPM) \
		--template $(STAGE_DIR)/$(CATALOG_TEMPLATE) --catalog $(STAGE_DIR)/catalog/ec2-operator/catalog.yaml \
		--pin-current $(IMAGES_DIR)/bundle
	$(IMAGES_TOOL) build $(IMAGES_FLAGS) --manifests $(STAGE_DIR) catalog
	$(IMAGES_TOOL) check $(IMAGES_FLAGS) --manifests $(STAGE_DIR)

# REGISTRY is where images-push pushes, such as quay.io/ec2-operator. Pushing anywhere
# but IMAGE_REPO needs a mirror configuration, since the bundle names IMAGE_REPO.
REGISTRY ?=

# A second build into another directory must give the same digests: nothing in the
# images may depend on the time, the build directory or the order of work.
.PHONY: verify-images-reproducible
verify-images-reproducible: images-tool ## Fail unless building the images (and their SBOMs) again gives identical digests.
	@again=$$(mktemp -d); trap 'rm -rf "$$again"' EXIT; \
	$(IMAGES_TOOL) build $(IMAGES_FLAGS) --manifests $(STAGE_DIR) --out "$$again" >/dev/null; \
	for image in operator scorecard must-gather bundle catalog; do \
		first=$$($(IMAGES_TOOL) digest $(IMAGES_DIR)/$$image); second=$$($(IMAGES_TOOL) digest "$$again/$$image"); \
		if [ "$$first" != "$$second" ]; then echo "$$image is not reproducible: $$first, then $$second"; exit 1; fi; \
		first=$$($(IMAGES_TOOL) sbom-digests $(IMAGES_DIR)/$$image); second=$$($(IMAGES_TOOL) sbom-digests "$$again/$$image"); \
		if [ "$$first" != "$$second" ]; then echo "$$image's SBOMs are not reproducible: $$first, then $$second"; exit 1; fi; \
		echo "$$image $$($(IMAGES_TOOL) digest $(IMAGES_DIR)/$$image) and its SBOMs reproduced"; \
	done

# OLM's catalog operator and olm operator install the bundle from the catalog image in
# test/release, and OLM's images on the real cluster (make test-cluster) carry them with
# packageserver and the unpack Job's copy tools. OLM_VERSION is the
# operator-lifecycle-manager release they are built from, once and static (no cgo, so
# they also run in an image without a libc): about 8 minutes cold on 2 cores.
OLM_VERSION ?= v0.40.0
OLM_BIN ?= $(LOCALBIN)/cluster/olm-$(OLM_VERSION)
OLM_CATALOG ?= $(OLM_BIN)/catalog
OLM_OPERATOR ?= $(OLM_BIN)/olm

.PHONY: olm-tools
olm-tools: | $(LOCALBIN) ## Build OLM's operators, packageserver and copy tools into bin/cluster if necessary.
	@hack/build-olm-images-binaries.sh $(OLM_VERSION) $(OLM_BIN)

# ci-release-tools builds what the release and install-path checks need and make test
# does not, so that .ci/run can build it beside make test. It shares no output with
# make test's prerequisites (controller-gen, crd-ref-docs; .ci/run builds setup-envtest
# before both), so the two never write the same file. The images are not among them:
# each check that needs images builds its own (make test-release into bin/images, .ci/run's
# make test-cluster into a directory of its own), from the packages make test compiled
# (the same flags and GOFIPS140), so only their link and the second platform are new.
# It is two halves, so that .ci/run can start the real-node suite once its own half is
# built, beside the other: ci-cluster-tools is what make test-cluster runs (Helm,
# operator-sdk and scorecard, opm, OLM v0 and v1, Prometheus, the node's binaries);
# ci-release-check-tools is what only the release checks run (kustomize, promtool,
# preflight, and the oldest Kubernetes's control plane, which takes kubectl and etcd
# from the newest one's).
.PHONY: ci-release-tools
ci-release-tools: ci-cluster-tools ci-release-check-tools ## Build the release tier's tools (CI builds them beside make test).

.PHONY: ci-cluster-tools
ci-cluster-tools: helm operator-sdk scorecard-test opm olm-tools ## Build what the real-node suite (make test-cluster) needs.
	@hack/build-monitoring.sh $(CLUSTER_BIN)/monitoring
	@hack/build-olmv1.sh
	@hack/build-node-binaries.sh $(ENVTEST_K8S_VERSION) $(CLUSTER_BIN)/node-$(ENVTEST_K8S_VERSION)

.PHONY: ci-release-check-tools
ci-release-check-tools: kustomize promtool preflight ## Build what only the release checks need.
	@$(ENVTEST_MIN_FROM_MAIN) hack/build-envtest-assets.sh $(ENVTEST_MIN_K8S_VERSION) $(LOCALBIN) $(ETCD_VERSION)

.PHONY: images-push
images-push: images-tool ## Push the release images by digest, then tag them v$(VERSION): make images-push REGISTRY=<host>/<org>.
	$(IMAGES_TOOL) push $(IMAGES_FLAGS) --registry "$(REGISTRY)"


##@ A real cluster (one node on this machine)

# cmd/devcluster runs a single-node Kubernetes cluster here: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, a kubelet whose pods are runc containers
# under Debian's containerd, kube-proxy and CoreDNS, everything built from Go modules
# (cached under bin/cluster, like the envtest binaries) and no image pulled from a
# registry: component images are packed from binaries and imported, the release images
# are imported under their release names and digests. docs/real-cluster.md has the
# details. It needs root (it creates a bridge, iptables chains and mounts).
CLUSTER_TOOL ?= $(LOCALBIN)/cluster-tool
CLUSTER_BIN ?= $(LOCALBIN)/cluster
# CLUSTER_TEST_FLAGS are extra flags for the cluster suite, e.g. -run 'TestCluster/OLM_v0'.
CLUSTER_TEST_FLAGS ?=

.PHONY: cluster-tool
cluster-tool: | $(LOCALBIN)
	@go build -o $(CLUSTER_TOOL) ./cmd/devcluster

.PHONY: cluster-binaries
cluster-binaries: setup-envtest images olm-tools scorecard-test ## Build the node's and its components' binaries from Go modules into bin/cluster (once: about 20 minutes cold on 2 cores).
	@hack/build-node-binaries.sh $(ENVTEST_K8S_VERSION) $(CLUSTER_BIN)/node-$(ENVTEST_K8S_VERSION)
	@hack/build-monitoring.sh $(CLUSTER_BIN)/monitoring
	@hack/build-olmv1.sh

.PHONY: cluster
cluster: cluster-binaries cluster-tool ## Bring up the cluster with OLM, Prometheus and the operator from the catalog image, for exploring; Ctrl-C stops the emulators, make cluster-down the node.
	$(CLUSTER_TOOL) up --root $(CURDIR) --fresh
	CLUSTER_EXPLORE=1 IMAGES_DIR=$(IMAGES_DIR) RELEASE_MANIFESTS=$(STAGE_DIR) go test -tags cluster ./test/cluster/ -count=1 -timeout 0 -v \
		-run 'TestCluster/(OLM_v0|OwnNamespace|monitoring)' | grep -v '^>> importing'

.PHONY: cluster-down
cluster-down: cluster-tool ## Stop the cluster and restore the host's settings (keeps its state; PURGE=1 deletes it).
	$(CLUSTER_TOOL) down --root $(CURDIR) $(if $(PURGE),--purge)

# test-cluster brings up a fresh node (images and certificates are kept), runs the
# suite and takes the node down again however the suite ends, also on Ctrl-C.
.PHONY: test-cluster
test-cluster: cluster-binaries cluster-tool helm ## Run the end-to-end suite on a real single-node cluster: OLM v0 and v1 as pods, Helm, Prometheus, upgrades, scorecard.
	@status=0; \
	trap '$(CLUSTER_TOOL) down --root $(CURDIR) --purge' EXIT; \
	trap 'exit 130' INT TERM; \
	$(CLUSTER_TOOL) up --root $(CURDIR) --fresh && \
	IMAGES_DIR=$(IMAGES_DIR) RELEASE_MANIFESTS=$(STAGE_DIR) go test -tags cluster ./test/cluster/ -count=1 -timeout 60m -v $(CLUSTER_TEST_FLAGS) || status=$$?; \
	exit $$status
