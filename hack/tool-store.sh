# Sourced by the scripts that build third-party programs and Kubernetes from Go modules
# (hack/build-*.sh). The tool store keeps what they built between clones of the
# repository, as setup-envtest keeps its control planes between projects: a clean
# clone's bin/ is empty, and linking every tool again from a warm Go build cache took
# about 190 s of each CI run. Programs are stored under a key made of everything their
# build reads (module versions, flags, platform, Go version, GOFIPS140 and the build
# scripts themselves), so a change to any of those builds them again; nothing built from
# this repository's sources is stored.
#
# TOOL_STORE is the store's directory (default: ec2-operator/tools in the user's cache
# directory); TOOL_STORE=off turns it off.

tool_store=${TOOL_STORE:-${XDG_CACHE_HOME:-$HOME/.cache}/ec2-operator/tools}

# tool_store_key NAME INPUT...: prints the key of a build: NAME, then a hash of the
# inputs, the Go toolchain, the target platform and the crypto module. An input that
# names a file adds the file's contents.
tool_store_key() {
  local name=$1 input
  shift
  {
    for input in "$@"; do
      if [[ -f "$input" ]]; then sha256sum <"$input"; else printf '%s\n' "$input"; fi
    done
    go env GOVERSION GOOS GOARCH CGO_ENABLED GOFIPS140
  } | sha256sum | cut -c1-20 | sed "s/^/$name-/"
}

# tool_store_restore KEY FILE...: copies every FILE stored under KEY into place and
# succeeds, or changes nothing and fails when the store lacks one of them.
tool_store_restore() {
  local key=$1 file
  shift
  [[ "$tool_store" != off && -d "$tool_store/$key" ]] || return 1
  for file in "$@"; do
    [[ -f "$tool_store/$key/$(basename "$file")" ]] || return 1
  done
  for file in "$@"; do
    mkdir -p "$(dirname "$file")"
    cp -p "$tool_store/$key/$(basename "$file")" "$file.store-tmp"
    mv -f "$file.store-tmp" "$file"
  done
  echo ">> $key: $# program(s) from the tool store ($tool_store)" >&2
}

# tool_store_save KEY FILE...: stores FILEs under KEY. The directory appears complete
# or not at all (a copy, then a rename), so a build beside this one never reads half of
# it; when two builds store the same key, the first one's copy stays.
tool_store_save() {
  local key=$1 tmp file
  shift
  [[ "$tool_store" != off ]] || return 0
  [[ -d "$tool_store/$key" ]] && return 0
  mkdir -p "$tool_store"
  tmp=$(mktemp -d "$tool_store/.saving.XXXXXX")
  chmod 755 "$tmp"
  for file in "$@"; do
    cp -p "$file" "$tmp/"
  done
  mv -T "$tmp" "$tool_store/$key" 2>/dev/null || rm -rf "$tmp"
}
