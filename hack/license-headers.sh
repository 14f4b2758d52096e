#!/usr/bin/env bash
# Checks (or, with --fix, adds) the licence header of hack/boilerplate.go.txt at the top
# of every Go file in the repository: the header the generators write into their
# output (zz_generated.deepcopy.go) is the one every hand-written file carries too.
#
# A file may start with build constraints (//go:build) before the header.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
header=$(sed 's/YEAR/2026/' "$root/hack/boilerplate.go.txt")
fix=false
[[ "${1:-}" == "--fix" ]] && fix=true

missing=()
joined=()
while IFS= read -r -d '' file; do
  # Skip leading build constraints and blank lines, then compare.
  body=$(awk 'BEGIN{s=1} s && (/^\/\/go:build/ || /^\/\/ \+build/ || /^$/) {next} {s=0; print}' "$file")
  if [[ "${body:0:${#header}}" != "$header" ]]; then
    missing+=("${file#"$root"/}")
  elif [[ "${body:${#header}:2}" != $'\n\n' && "${#body}" -gt "${#header}" ]]; then
    # The header must stand alone: a comment on its closing line or the next one
    # would join it, and the licence would become the package's documentation.
    joined+=("${file#"$root"/}")
  fi
done < <(find "$root" -name '*.go' -not -path "$root/bin/*" -not -path "$root/.git/*" -not -path "$root/dist/*" -print0 | sort -z)

if [[ ${#joined[@]} -gt 0 ]]; then
  echo "these Go files have the licence header but no blank line after it (the next comment joins the licence):" >&2
  printf '  %s\n' "${joined[@]}" >&2
  exit 1
fi
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
if ! $fix; then
  echo "these Go files lack the licence header of hack/boilerplate.go.txt (run hack/license-headers.sh --fix):" >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 1
fi
for f in "${missing[@]}"; do
  tmp=$(mktemp)
  # Build constraints must stay first (only line comments may precede them), so the
  # header goes after them.
  awk -v header="$header" '
    NR == 1 && /^\/\/go:build/ { constraint = 1 }
    constraint { print; if ($0 == "") { constraint = 0; print header; print ""; done = 1 }; next }
    !done { print header; print ""; done = 1 }
    { print }
  ' "$root/$f" >"$tmp"
  mv "$tmp" "$root/$f"
done
echo "added the licence header to ${#missing[@]} files"
