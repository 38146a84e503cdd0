#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one fuzz target for SECONDS (default 60); docs/fuzzing.md.
#
#   scripts/fuzz.sh TARGET [SECONDS] [libFuzzer arguments...]
#   scripts/fuzz.sh SECONDS              # the translator, as before
#
# TARGET is translator, codegen, selector, cache_entry (libFuzzer, built in
# build-fuzz with clang and ASan/UBSan), or differential (generated kernels
# on the CPU backend and on opencl:0, built in build). New inputs go to
# build-fuzz/corpus/TARGET (kept between runs), crashes, leaks and timeouts
# to build-fuzz/artifacts/TARGET/; the exit status is non-zero on any of
# them. Extra arguments go to the fuzzer (e.g. -jobs=2 -workers=2).
#
#   build-fuzz/fuzz_codegen build-fuzz/artifacts/codegen/crash-...   # reproduce
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" =~ ^[0-9]+$ || -z "${1:-}" ]]; then
  target=translator
else
  target="$1"
  shift
fi
seconds="${1:-60}"
shift || true
build=build-fuzz
cc="${CC_FUZZ:-clang}"
artifacts="$build/artifacts/$target"
mkdir -p "$artifacts"

if [ "$target" = differential ]; then
  if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja >/dev/null; fi
  cmake --build build --target fuzz_differential >/dev/null
  seed="${FUZZ_SEED:-$(date +%s)}"
  echo "== differential: generated kernels, cpu:0 against opencl:0, ${seconds}s from seed $seed"
  set +e
  build/tests/fuzz_differential --seconds "$seconds" --seed "$seed" --save "$artifacts" "$@" \
    >"$build/fuzz-differential.log" 2>&1
  status=$?
  set -e
  grep -E 'kernels agreed|^FAIL|^CRASH|^DRIVER|^skipped' "$build/fuzz-differential.log" || true
  if [ "$status" -eq 77 ]; then
    echo "== skipped (no OpenCL device)"
    exit 0
  fi
  if [ "$status" -ne 0 ]; then
    echo "== disagreement or failure (status $status); kernels in $artifacts; log:"
    grep -v 'warnings\? generated' "$build/fuzz-differential.log" | head -n 120
    exit "$status"
  fi
  echo "== every kernel agreed"
  exit 0
fi

case "$target" in
  translator)
    seeds="tests/kernels/valid tests/kernels/invalid tests/fuzz/regressions"
    options="-dict=tests/fuzz/kernel.dict -max_len=8192" ;;
  codegen)
    seeds="tests/fuzz/seeds/codegen"
    options="-max_len=4096 -len_control=20" ;;
  selector)
    seeds="tests/fuzz/seeds/selector"
    options="-dict=tests/fuzz/selector.dict -max_len=512" ;;
  cache_entry)
    seeds="tests/fuzz/seeds/cache_entry"
    options="-max_len=4096" ;;
  *)
    echo "unknown target '$target' (translator, codegen, selector, cache_entry, differential)" >&2
    exit 2 ;;
esac

cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER="$cc" -DAGPU_FUZZ=ON \
  -DAGPU_BUILD_TESTS=OFF -DAGPU_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target "fuzz_$target" >/dev/null
fuzzer="$build/fuzz_$target"
corpus="$build/corpus/$target"
mkdir -p "$corpus"
log="$build/fuzz-$target.log"
echo "== fuzz_$target for ${seconds}s (log: $log)"
set +e
# shellcheck disable=SC2086 # $options and $seeds are word lists
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  "$fuzzer" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 $options \
  -print_final_stats=1 -artifact_prefix="$artifacts/" "$@" "$corpus" $seeds >"$log" 2>&1
status=$?
set -e
# The last status line: #EXECS DONE cov: N ft: N corp: N/SIZE lim: N exec/s: N rss: N
grep -E '^#[0-9]+' "$log" | tail -n 1 || true
grep -E '^stat::number_of_executed_units' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "== the fuzzer failed (status $status):"
  grep -E -A40 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY|Test unit written|^fuzz_' "$log" | head -n 80
  exit "$status"
fi
echo "== no crash, leak or timeout"
