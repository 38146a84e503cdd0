#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The license identifier in every source file (docs/releasing.md).
#
#   scripts/spdx.sh --check   list the source files whose first comment lacks
#                             "SPDX-License-Identifier: Apache-2.0"; exit 1 if any
#   scripts/spdx.sh --apply   add it as the first line (after a #! line), in the
#                             file's comment syntax; files that have it are left
#                             alone, so it is safe to run again after a merge
#
# The files are git's (tracked, and untracked ones not ignored) or, outside a
# checkout, every file under the repository. Left out, on purpose:
# - tests/kernels/: the translator's corpus; its expected diagnostics name
#   file:line:col, and a line more would move every one of them;
# - tests/fuzz/ data (seeds, regressions, known driver bugs, dictionaries):
#   inputs replayed byte for byte;
# - docs/ and *.md, JSON, the PTX and .abi dumps, LICENSE: documents, data and
#   generated files, not source.
set -euo pipefail
cd "$(dirname "$0")/.."
readonly tag="SPDX-License-Identifier: Apache-2.0"

usage() {
  echo "usage: scripts/spdx.sh --check | --apply" >&2
  exit 2
}
[ $# -eq 1 ] || usage
mode=$1
case "$mode" in --check | --apply) ;; *) usage ;; esac

list_files() {
  if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard
  else
    find . -type f -not -path './.git/*' -not -path './build*' -printf '%P\0'
  fi
}

# The line comment for FILE, or nothing when FILE is not checked.
comment_for() {
  local file=$1
  case "$file" in
    tests/kernels/* | tests/fuzz/seeds/* | tests/fuzz/regressions* | tests/fuzz/known-driver-bugs/*) return ;;
    docs/* | abi/* | build*/* | */build*/*) return ;;
  esac
  case "$file" in
    *.c | *.h | *.cpp | *.hpp | *.cl | *.comp) echo "//" ;;
    CMakeLists.txt | */CMakeLists.txt | *.cmake | *.cmake.in | *.pc.in) echo "#" ;;
    *.sh | *.py | *.toml | *.supp | .ci/run) echo "#" ;;
  esac
}

# The line the identifier may sit on: 1, or 2 after a #! line.
tag_line() {
  if head -c 2 "$1" | grep -q '^#!'; then echo 2; else echo 1; fi
}

has_tag() {
  local line
  line=$(tag_line "$1")
  sed -n "${line}p" "$1" | grep -qF "$tag"
}

add_tag() {
  local file=$1 comment=$2 line tmp
  line=$(tag_line "$file")
  tmp=$(mktemp "$file.spdx.XXXXXX")
  if [ "$line" -eq 2 ]; then
    { head -n 1 "$file"; echo "$comment $tag"; tail -n +2 "$file"; } > "$tmp"
  else
    { echo "$comment $tag"; cat "$file"; } > "$tmp"
  fi
  chmod --reference="$file" "$tmp"
  mv "$tmp" "$file"
}

missing=0
while IFS= read -r -d '' file; do
  [ -f "$file" ] && [ ! -L "$file" ] || continue
  comment=$(comment_for "$file")
  [ -n "$comment" ] || continue
  has_tag "$file" && continue
  if [ "$mode" = --apply ]; then
    add_tag "$file" "$comment"
    echo "spdx: added to $file"
  else
    echo "$file"
    missing=$((missing + 1))
  fi
done < <(list_files)

if [ "$mode" = --check ] && [ "$missing" -gt 0 ]; then
  echo "spdx: $missing file(s) above lack \"$tag\" (scripts/spdx.sh --apply adds it)" >&2
  exit 1
fi
exit 0
