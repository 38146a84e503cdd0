#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The exported-symbol check (docs/releasing.md): LIBRARY (libanygpu.so)
# defines only agpu_* symbols (nothing of glslang, SPIRV-Tools, the C++
# runtime or the C library leaks out of it), and every function anygpu.h
# declares is among them.
#   scripts/check-symbols.sh LIBRARY [HEADER]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: scripts/check-symbols.sh LIBRARY [HEADER]" >&2; exit 2; }
library=$1
header=${2:-$root/api/anygpu.h}

exported=$(nm -D --defined-only "$library" | awk '{ print $NF }' | sort -u)
[ -n "$exported" ] || { echo "check-symbols: $library exports nothing" >&2; exit 1; }
failed=0
foreign=$(grep -v '^agpu_' <<< "$exported" || true)
if [ -n "$foreign" ]; then
  echo "check-symbols: $library exports symbols that are not agpu_*:" >&2
  sed 's/^/  /' <<< "$foreign" >&2
  failed=1
fi
# The header's functions: declarations start a line with "AGPU_API type name(".
declared=$(grep -o '^AGPU_API [^;(]*(' "$header" | sed 's/[[:space:]]*($//; s/.*[[:space:]*]//' |
  sort -u)
[ -n "$declared" ] || { echo "check-symbols: no AGPU_API declarations in $header" >&2; exit 1; }
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [ -n "$missing" ]; then
  echo "check-symbols: declared in $(basename "$header") but not exported by $library:" >&2
  sed 's/^/  /' <<< "$missing" >&2
  failed=1
fi
echo "check-symbols: $(wc -l <<< "$exported") exported, all agpu_*;" \
  "$(wc -l <<< "$declared") declared in $(basename "$header"), all exported"
[ "$failed" -eq 0 ] || exit 1
