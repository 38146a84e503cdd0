#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU check: on a machine with an NVIDIA GPU and the CUDA toolkit, builds
# anygpu (Release, its own build directory), then records `anygpu list
# --json`, `anygpu doctor`, the ctest suite, `anygpu test --json` on every
# device and the benchmarks, and prints a summary table last. Without a GPU
# it ends cleanly (exit 0) saying "no GPU". See docs/gpu-testing.md.
#
#   tests/gpu/run.sh [--build-dir DIR] [--no-build] [--no-ctest] [--out DIR]
#                    [--expect-no-gpu]
#
# Results go to --out, else $OUT, else ./gpu-results: at most 8 files
# (summary.txt, list.json, doctor.txt, ctest.log, test.json, bench.json,
# nvidia-smi.txt, and logs.tar.gz with everything else).
set -u

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir="$repo/build-gpu"
do_build=1
do_ctest=1
expect_no_gpu=0
out="${OUT:-$PWD/gpu-results}"

usage() {
  sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --no-ctest) do_ctest=0; shift ;;
    --out) out="$2"; shift 2 ;;
    --expect-no-gpu) expect_no_gpu=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
case "$build_dir" in /*) ;; *) build_dir="$PWD/$build_dir" ;; esac
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac

mkdir -p "$out" || { echo "run.sh: cannot create $out" >&2; exit 2; }
logs="$out/logs"
mkdir -p "$logs"
jobs=$(nproc 2>/dev/null || echo 4)
start_all=$(date +%s)
summary_rows=()
failures=0

# row STEP RESULT DETAIL SECONDS
row() { summary_rows+=("$(printf '%-14s %-8s %6ss  %s' "$1" "$2" "$4" "$3")"); }
now() { date +%s; }
# capped SECONDS COMMAND...: runs with a time limit where timeout(1) exists.
capped() {
  local limit=$1; shift
  if command -v timeout >/dev/null 2>&1; then timeout --kill-after=10 "$limit" "$@"; else "$@"; fi
}

finish() {
  local code=$1 verdict=$2
  {
    echo "anygpu GPU check, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(( $(now) - start_all )) s"
    echo "repository: $repo ($(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo "build directory: $build_dir"
    echo
    printf '%-14s %-8s %7s  %s\n' STEP RESULT TIME DETAIL
    printf '%s\n' "${summary_rows[@]}"
    echo
    echo "$verdict"
  } > "$out/summary.txt"
  # Everything but the named files goes into one archive.
  if [ -n "$(ls -A "$logs" 2>/dev/null)" ]; then
    tar -C "$out" -czf "$out/logs.tar.gz" logs 2>/dev/null
  fi
  rm -rf "$logs"
  echo
  cat "$out/summary.txt"
  echo "results: $out ($(ls "$out" | wc -l) files)"
  exit "$code"
}

# ------------------------------------------------------------ GPU present?
# nvidia-smi's list, and whether a libcuda.so.1 exists anywhere the dynamic
# linker looks (containers often put the driver's libraries on
# LD_LIBRARY_PATH). Neither: no GPU, and nothing heavy is done.
smi_gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi > "$out/nvidia-smi.txt" 2>&1
  nvidia-smi -L > "$logs/nvidia-smi-L.txt" 2>&1
  smi_gpus=$(grep -c '^GPU ' "$logs/nvidia-smi-L.txt")
fi
libcuda=""
IFS=: read -r -a library_dirs <<< "${LD_LIBRARY_PATH:-}"
for dir in "${library_dirs[@]}" /usr/local/nvidia/lib64 /usr/lib64 /usr/lib/x86_64-linux-gnu \
           /usr/lib/aarch64-linux-gnu /usr/lib; do
  if [ -n "$dir" ] && [ -e "$dir/libcuda.so.1" ]; then libcuda="$dir/libcuda.so.1"; break; fi
done
if [ -z "$libcuda" ] && ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  libcuda=$(ldconfig -p | grep 'libcuda\.so\.1' | head -n 1 | sed 's/.*=> //')
fi
gpu_reason=""
if [ "$smi_gpus" = 0 ] && [ -z "$libcuda" ]; then
  if command -v nvidia-smi >/dev/null 2>&1; then
    gpu_reason="nvidia-smi lists no GPU and libcuda.so.1 is not installed"
  else
    gpu_reason="nvidia-smi and libcuda.so.1 are not installed"
  fi
fi
if [ "$expect_no_gpu" = 1 ] && [ -z "$gpu_reason" ]; then
  echo "skipped: this machine has an NVIDIA GPU or driver; the no-GPU ending is not checked here"
  rm -rf "$logs"
  exit 77
fi
[ -n "$gpu_reason" ] && [ "$do_build" = 1 ] && do_build=0 && skipped_build_for_no_gpu=1

# ------------------------------------------------------------------ build
if [ "$do_build" = 1 ]; then
  t=$(now)
  generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  # Every backend is optional: missing OpenCL, Vulkan or glslang headers
  # build backends that report themselves unavailable. A newer compiler's
  # new warnings must not stop the check.
  if cmake -S "$repo" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
       -DAGPU_WERROR=OFF > "$logs/configure.log" 2>&1 &&
     cmake --build "$build_dir" -j "$jobs" > "$logs/build.log" 2>&1; then
    row build ok "Release, $jobs jobs" $(( $(now) - t ))
  else
    row build FAILED "see logs.tar.gz: logs/configure.log, logs/build.log" $(( $(now) - t ))
    tail -n 40 "$logs/build.log" "$logs/configure.log" 2>/dev/null
    finish 1 "FAILED: the build failed"
  fi
elif [ -n "${skipped_build_for_no_gpu:-}" ]; then
  row build skipped "no GPU: $gpu_reason" 0
else
  row build skipped "--no-build: using $build_dir" 0
fi
anygpu="$build_dir/tools/anygpu"
if [ ! -x "$anygpu" ] && [ -n "$gpu_reason" ]; then
  row gpu none "$gpu_reason" 0
  finish 0 "no GPU: $gpu_reason; nothing was built or run"
elif [ ! -x "$anygpu" ]; then
  row anygpu FAILED "$anygpu is missing" 0
  finish 1 "FAILED: no anygpu binary in $build_dir"
fi

# ------------------------------------------------------- list and doctor
t=$(now)
capped 120 "$anygpu" list --json > "$out/list.json" 2> "$logs/list.stderr"
list_status=$?
capped 120 "$anygpu" list > "$logs/list.txt" 2>&1
cuda_devices=$(grep -c '"selector": "cuda:' "$out/list.json" 2>/dev/null)
cuda_devices=${cuda_devices:-0}
cuda_reason=$(grep -A0 '^  cuda ' "$logs/list.txt" | sed 's/^ *//')
row list "$([ $list_status = 0 ] && echo ok || echo FAILED)" \
    "$cuda_devices CUDA device(s)${cuda_reason:+; $cuda_reason}" $(( $(now) - t ))
[ $list_status = 0 ] || failures=$((failures + 1))
t=$(now)
capped 120 "$anygpu" doctor > "$out/doctor.txt" 2>&1
doctor_status=$?
capped 120 "$anygpu" doctor --json > "$logs/doctor.json" 2>&1
row doctor "exit $doctor_status" "doctor.txt" $(( $(now) - t ))
t=$(now)
capped 60 "$anygpu" top --count 2 --interval 0.5 --json --apis > "$logs/top.json" 2>&1
top_status=$?
capped 60 "$anygpu" top --count 1 --apis > "$logs/top.txt" 2>&1
row top "exit $top_status" "logs/top.json (NVML: docs/telemetry.md)" $(( $(now) - t ))

if [ -n "$gpu_reason" ]; then
  row gpu none "$gpu_reason" 0
  finish 0 "no GPU: $gpu_reason; the ctest suite, anygpu test and the benchmarks were skipped"
fi
if [ "$cuda_devices" = 0 ]; then
  # A GPU or a driver is there, but anygpu sees no CUDA device: that is
  # what this check is for, so it fails, with the backend's reason.
  row gpu FAILED "nvidia-smi: $smi_gpus GPU(s), libcuda: ${libcuda:-none}; anygpu: ${cuda_reason:-no cuda device}" 0
  finish 1 "FAILED: anygpu lists no CUDA device (${cuda_reason:-see doctor.txt})"
fi
row gpu found "nvidia-smi: $smi_gpus GPU(s); libcuda: ${libcuda:-via the linker}" 0

# ------------------------------------------------------------------ ctest
if [ "$do_ctest" = 1 ]; then
  t=$(now)
  # The CUDA tests first, so that a cut-off run still has them.
  capped 180 ctest --test-dir "$build_dir" -j "$jobs" --timeout 150 --output-on-failure \
    > "$out/ctest.log" 2>&1
  ctest_status=$?
  cp "$build_dir/Testing/Temporary/LastTest.log" "$logs/ctest-LastTest.log" 2>/dev/null
  tally=$(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -n 1)
  [ $ctest_status = 124 ] && tally="cut off after 180 s; $tally"
  row ctest "$([ $ctest_status = 0 ] && echo ok || echo FAILED)" "${tally:-no tally}" \
      $(( $(now) - t ))
  [ $ctest_status = 0 ] || failures=$((failures + 1))
else
  row ctest skipped "--no-ctest" 0
fi

# ------------------------------------------------------------ anygpu test
t=$(now)
capped 120 "$anygpu" test --json > "$out/test.json" 2> "$logs/test.stderr"
test_status=$?
capped 45 "$anygpu" test --device cuda:0 > "$logs/test-cuda0.txt" 2>&1
row "anygpu test" "$([ $test_status = 0 ] && echo ok || echo FAILED)" \
    "every device; exit $test_status; $(tail -n 1 "$logs/test-cuda0.txt" 2>/dev/null)" \
    $(( $(now) - t ))
[ $test_status = 0 ] || failures=$((failures + 1))

# ------------------------------------------------------------- benchmarks
t=$(now)
if "$anygpu" bench --help > /dev/null 2>&1; then
  capped 90 "$anygpu" bench --json > "$out/bench.json" 2> "$logs/bench.stderr"
  bench_status=$?
  row "anygpu bench" "$([ $bench_status = 0 ] && echo ok || echo FAILED)" "exit $bench_status" \
      $(( $(now) - t ))
  [ $bench_status = 0 ] || failures=$((failures + 1))
else
  row "anygpu bench" absent "this build has no 'anygpu bench'" 0
fi
native_count=0
if [ -d "$build_dir/bench/native" ]; then
  mkdir -p "$logs/bench-native"
  native_start=$(now)
  for program in "$build_dir"/bench/native/*; do
    [ -f "$program" ] && [ -x "$program" ] || continue
    [ $(( $(now) - native_start )) -lt 60 ] || break # 60 s for all of them
    name=$(basename "$program")
    capped 30 "$program" > "$logs/bench-native/$name.txt" 2>&1
    echo "exit $?" >> "$logs/bench-native/$name.txt"
    native_count=$((native_count + 1))
  done
fi
row "native bench" "$native_count run" "build/bench/native/* (in logs.tar.gz)" $(( $(now) - t ))

if [ $failures = 0 ]; then
  finish 0 "ok: $cuda_devices CUDA device(s) checked"
fi
finish 1 "FAILED: $failures step(s) failed on $cuda_devices CUDA device(s)"
