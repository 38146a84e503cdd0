#!/usr/bin/env bash
# Fuzzes the kernel-language translator with libFuzzer for SECONDS (default
# 60): configures build-fuzz with clang and AGPU_FUZZ=ON, builds
# fuzz_translator, and runs it with the dictionary and the kernel corpus as
# seeds. New inputs go to build-fuzz/corpus (kept between runs), crashes,
# leaks and timeouts to build-fuzz/artifacts/; the exit status is non-zero on
# any of them. Extra arguments go to the fuzzer (e.g. -jobs=4 -workers=4).
#
#   scripts/fuzz.sh 600
#   build-fuzz/tests/fuzz/fuzz_translator build-fuzz/artifacts/crash-...   # reproduce
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
build=build-fuzz
cc="${CC_FUZZ:-clang}"

cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER="$cc" -DAGPU_FUZZ=ON \
  -DAGPU_BUILD_TESTS=OFF -DAGPU_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target fuzz_translator
fuzzer="$build/fuzz_translator"

mkdir -p "$build/corpus" "$build/artifacts"
log="$build/fuzz.log"
echo "== fuzzing the translator for ${seconds}s (log: $log)"
set +e
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  "$fuzzer" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=8192 \
  -print_final_stats=1 -dict=tests/fuzz/kernel.dict -artifact_prefix="$build/artifacts/" "$@" \
  "$build/corpus" tests/kernels/valid tests/kernels/invalid $(ls -d tests/fuzz/regressions 2>/dev/null) >"$log" 2>&1
status=$?
set -e
# The last status line: #EXECS DONE cov: N ft: N corp: N/SIZE lim: N exec/s: N rss: N
grep -E '^#[0-9]+' "$log" | tail -n 1 || true
grep -E '^stat::' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "== the fuzzer failed (status $status):"
  grep -E -A40 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY|Test unit written' "$log" | head -n 80
  exit "$status"
fi
echo "== no crash, leak or timeout"
