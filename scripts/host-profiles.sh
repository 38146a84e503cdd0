#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the tests whose results depend on the host CPU again as older hosts
# would run them: lavapipe and PoCL held to a narrower instruction set
# (their code generators pick one from the host at run time) and the CPU
# backend's kernels compiled for an older -march. A test that holds only on
# the newest CPU shows itself here (lavapipe's double trunc/roundEven are
# wrong without AVX-512: docs/vulkan.md, "Probes").
#
#   scripts/host-profiles.sh [BUILD_DIR] [PROFILE...]
#
# Profiles: avx2 (a Haswell-class host: AVX2 and FMA, no AVX-512), sse4
# (SSE4.1, 128-bit vectors), lp128 (this host's instructions, lavapipe at
# 128-bit vectors). A profile needing instructions this CPU lacks is skipped
# with a message. Exit status: that of the first failing ctest.
set -uo pipefail
build=${1:-build}
shift || true
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=(avx2 sse4 lp128)

# The tests run in each profile: everything on Vulkan (the corpus per
# kernel, the fp64 library on the device), the corpus against PoCL and the
# CPU backend, the conformance suite, and the rounding and CPU kernel tests.
tests='^(test_corpus_vulkan_.*|test_vulkan_.*|test_glsl_fp64_math|test_f64_rounding|test_corpus_valid|conformance_suite|test_cpu_kernels|test_opencl_launch)$'

has_flag() { grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | grep -qw "$1"; }

status=0
for profile in "${profiles[@]}"; do
  case $profile in
    avx2)
      need=avx2
      vars=(GALLIUM_OVERRIDE_CPU_CAPS=avx LP_NATIVE_VECTOR_WIDTH=256 POCL_KERNELLIB_NAME=avx2
        ANYGPU_CPU_MARCH=x86-64-v3) ;;
    sse4)
      need=sse4_1
      vars=(GALLIUM_OVERRIDE_CPU_CAPS=sse4.1 LP_NATIVE_VECTOR_WIDTH=128 POCL_KERNELLIB_NAME=sse41
        ANYGPU_CPU_MARCH=x86-64-v2) ;;
    lp128)
      need=sse4_1
      vars=(LP_NATIVE_VECTOR_WIDTH=128) ;;
    *)
      echo "host-profiles: unknown profile '$profile' (avx2, sse4, lp128)" >&2
      exit 2 ;;
  esac
  if ! has_flag "$need"; then
    echo "== host profile $profile: skipped, this CPU lacks $need"
    continue
  fi
  echo "== host profile $profile: ${vars[*]}"
  start=$(date +%s)
  env "${vars[@]}" ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -R "$tests"
  code=$?
  echo "== host profile $profile: exit $code in $(($(date +%s) - start)) s"
  [ $code -eq 0 ] || [ $status -ne 0 ] || status=$code
done
exit $status
