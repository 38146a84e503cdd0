#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ABI check (docs/releasing.md): dumps the ABI of BUILD_DIR's
# libanygpu.so with abidw (Debian: abigail-tools) and compares it with
# abidiff against the newest committed release dump, abi/anygpu-X.Y.Z.abi.
#
#   scripts/abi-check.sh BUILD_DIR           check; the dump is left in
#                                            BUILD_DIR/anygpu-current.abi
#   scripts/abi-check.sh --dump BUILD_DIR OUT  only write the dump to OUT (for a
#                                            release: abi/anygpu-X.Y.Z.abi)
#
# The ABI is what api/anygpu.h declares: types from other headers are dropped
# (--drop-private-types), and so are the functions exported only for the
# command and the tests (abi/internal.abignore). Additions pass (a new
# function, an enum value appended); an incompatible change (a function
# removed, its parameter or return type changed, a public struct changed in
# size or layout, an enum value renumbered) fails unless the SONAME changed. The library needs debug information (-g: a
# RelWithDebInfo or Debug build). Exit 0 compatible, 1 a break, 2 a usage or
# tool error, 77 abidw or abidiff missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
suppressions=$root/abi/internal.abignore

usage() {
  echo "usage: scripts/abi-check.sh BUILD_DIR | --dump BUILD_DIR OUT" >&2
  exit 2
}
dump_only=""
if [ "${1:-}" = --dump ]; then
  [ $# -eq 3 ] || usage
  dump_only=$3
  shift
fi
[ $# -ge 1 ] || usage
build=$(cd "$1" && pwd)

for tool in abidw abidiff readelf; do
  if ! command -v "$tool" > /dev/null; then
    echo "abi-check: $tool not found (install abigail-tools and binutils)" >&2
    exit 77
  fi
done
library=$(readlink -f "$build/libanygpu.so")
[ -f "$library" ] || { echo "abi-check: no libanygpu.so in $build" >&2; exit 2; }
if ! readelf -S "$library" | grep -q '\.debug_info'; then
  echo "abi-check: $library has no debug information: build it with -g" \
    "(CMAKE_BUILD_TYPE=RelWithDebInfo, the default, or Debug)" >&2
  exit 2
fi
# The header as the compiler saw it: the build's own source tree.
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2> /dev/null || true)
[ -n "$source_dir" ] || source_dir=$root

dump() { # LIBRARY OUT
  abidw --header-file "$source_dir/api/anygpu.h" --drop-private-types --exported-interfaces-only \
    --suppressions "$suppressions" --no-corpus-path --short-locs --no-comp-dir-path \
    --out-file "$2" "$1"
}
if [ -n "$dump_only" ]; then
  dump "$library" "$dump_only"
  echo "abi-check: wrote $dump_only from $library"
  exit 0
fi

baseline=$(find "$root/abi" -maxdepth 1 -name 'anygpu-*.abi' | sort -V | tail -n 1)
[ -n "$baseline" ] || { echo "abi-check: no abi/anygpu-*.abi to compare with" >&2; exit 2; }
current=$build/anygpu-current.abi
dump "$library" "$current"

soname_of() { sed -n "s/.*<abi-corpus [^>]*soname='\([^']*\)'.*/\1/p" "$1" | head -n 1; }
old_soname=$(soname_of "$baseline")
new_soname=$(soname_of "$current")
echo "abi-check: $(basename "$baseline") ($old_soname) against $library ($new_soname)"

status=0
report=$(abidiff --suppressions "$suppressions" "$baseline" "$current") || status=$?
[ -z "$report" ] || echo "$report"
# abidiff's exit status is a bit field: 1 error, 2 usage error, 4 a change,
# 8 an incompatible change. Bit 8 is set only for removals: a struct whose
# layout changed, a parameter whose type changed or an enum value renumbered
# sets bit 4 alone, and shows as a "Changed" function or variable in the
# summary (the harmless changes, like an enum value appended, are filtered
# out by abidiff, the moving *_COUNT_ sentinels by abi/internal.abignore).
if [ $((status & 3)) -ne 0 ]; then
  echo "abi-check: abidiff failed (exit $status)" >&2
  exit 2
fi
changed=$(sed -n 's/^\(Functions\|Variables\) changes summary: [0-9]* Removed, \([0-9]*\) Changed.*/\2/p' \
  <<< "$report" | awk '{ n += $1 } END { print n + 0 }')
if [ $((status & 8)) -ne 0 ] || [ "$changed" -gt 0 ]; then
  if [ "$old_soname" != "$new_soname" ]; then
    echo "abi-check: incompatible changes, and the SONAME changed ($old_soname -> $new_soname): allowed"
    exit 0
  fi
  echo "abi-check: FAIL: incompatible changes against $(basename "$baseline") with the same SONAME" \
    "($new_soname): keep the old ABI, or bump AGPU_SOVERSION (docs/releasing.md)" >&2
  exit 1
fi
if [ $((status & 4)) -ne 0 ]; then
  echo "abi-check: compatible changes only"
else
  echo "abi-check: no ABI change"
fi
exit 0
