# Build the manager image with a container engine (make docker-build). The release
# images are built without one by cmd/images (make images), with the same content: a
# static manager on a minimal non-root filesystem with CA certificates and the license.
FROM docker.io/library/golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=devel
ARG REVISION=unknown

WORKDIR /workspace
# Cache modules before copying the sources, so source edits do not re-download them.
COPY go.mod go.mod
COPY go.sum go.sum
RUN go mod download

COPY cmd/ cmd/
COPY api/ api/
COPY internal/ internal/

# CGO is off so the binary runs on a distroless image; -trimpath keeps builder paths out.
# GOFIPS140: the Go Cryptographic Module validated under FIPS 140-3, as make images
# builds it (Makefile GOFIPS140).
RUN CGO_ENABLED=0 GOFIPS140=v1.0.0-c2097c7c GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -buildvcs=false \
    -ldflags "-s -w -X github.com/ec2-operator/ec2-operator/internal/version.Version=${VERSION} -X github.com/ec2-operator/ec2-operator/internal/version.Revision=${REVISION}" \
    -o manager ./cmd

# A minimal runtime image with no shell or package manager, running as a non-root user.
FROM gcr.io/distroless/static:nonroot
ARG VERSION=devel
ARG REVISION=unknown
LABEL name="quay.io/ec2-operator/ec2-operator" \
      vendor="ec2-operator project" \
      version="v${VERSION}" \
      summary="The ec2-operator manager: reconciles EC2Instance resources with Amazon EC2." \
      io.k8s.display-name="EC2 Operator" \
      io.openshift.tags="aws,ec2,operator" \
      org.opencontainers.image.source="https://github.com/ec2-operator/ec2-operator" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="v${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /
COPY LICENSE /licenses/LICENSE
COPY --from=builder /workspace/manager .
USER 65532:65532

ENTRYPOINT ["/manager"]
