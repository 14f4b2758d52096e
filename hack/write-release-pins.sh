#!/usr/bin/env bash
# Writes the release pins (config/release/images.env) from the operator, scorecard and
# must-gather images just built, or with --check fails unless the file already names
# exactly those images: CI's check that a release commit pins what it builds.
#
# usage: hack/write-release-pins.sh [--check] PINS IMAGES_TOOL IMAGES_DIR IMAGE_TAG_BASE
set -euo pipefail
check=0
if [[ ${1:-} == --check ]]; then check=1; shift; fi
pins=${1:?pins file} tool=${2:?images tool} images=${3:?images directory} base=${4:?image repository}

ref() { echo "$base$1@$("$tool" digest "$images/$2")"; }
operator=$(ref "" operator)
scorecard=$(ref -scorecard scorecard)
mustgather=$(ref -must-gather must-gather)

if (( check )); then
  # shellcheck source=/dev/null
  source "$pins"
  status=0
  for pair in "OPERATOR_IMAGE $OPERATOR_IMAGE $operator" "SCORECARD_IMAGE $SCORECARD_IMAGE $scorecard" \
    "MUST_GATHER_IMAGE $MUST_GATHER_IMAGE $mustgather"; do
    read -r name pinned built <<<"$pair"
    if [[ $pinned != "$built" ]]; then
      echo "$pins: $name is $pinned, but these sources build $built" >&2
      status=1
    fi
  done
  (( status == 0 )) && echo "$pins names the images these sources build"
  exit $status
fi

# Keep the file's comment; replace the three assignments.
tmp=$(mktemp)
grep -v -e '^OPERATOR_IMAGE=' -e '^SCORECARD_IMAGE=' -e '^MUST_GATHER_IMAGE=' "$pins" >"$tmp" || true
printf 'OPERATOR_IMAGE=%s\nSCORECARD_IMAGE=%s\nMUST_GATHER_IMAGE=%s\n' "$operator" "$scorecard" "$mustgather" >>"$tmp"
mv "$tmp" "$pins"
echo "wrote $pins:"; grep -e '_IMAGE=' "$pins"
