#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copies the OpenCL kernel files (.cl with the .h/.cl/.clh files beside them)
# of six public collections out of bare git mirrors into OUT/<suite>/...:
#   benchmark suites: yuhc/gpu-rodinia opencl/, vetter/shoc src/opencl/,
#   abduld/Parboil benchmarks/; a large scientific code: fangq/mcxcl src/
#   (Monte Carlo photon transport); a teaching course:
#   HandsOnOpenCL/Exercises-Solutions; vendor SDK samples:
#   longv2go/NVIDIA-OpenCL-Samples (NVIDIA's OpenCL SDK)
# The code is theirs: keep OUT outside this repository, never commit it.
#   scripts/realworld/extract.sh MIRRORS OUT
# MIRRORS holds owner+name/repo bare clones (e.g. /work/.mirror).
set -euo pipefail
mirrors=${1:?usage: extract.sh MIRRORS OUT}
out=${2:?usage: extract.sh MIRRORS OUT}
rm -rf "$out"
mkdir -p "$out"
for spec in "rodinia:yuhc+gpu-rodinia:opencl/" "shoc:vetter+shoc:src/opencl/" \
  "parboil:abduld+Parboil:benchmarks/" "mcxcl:fangq+mcxcl:src/" \
  "handson:HandsOnOpenCL+Exercises-Solutions:" "nvsdk:longv2go+NVIDIA-OpenCL-Samples:"; do
  IFS=: read -r suite mirror prefix <<<"$spec"
  git=$mirrors/$mirror/repo
  git -C "$git" ls-tree -r --name-only HEAD | grep "^$prefix" | grep -E '\.(cl|h|clh)$' |
    while IFS= read -r f; do
      # spaces become _: the baseline's driver takes -I DIR split at spaces
      to="$out/$suite/${f// /_}"
      mkdir -p "$(dirname "$to")"
      git -C "$git" show "HEAD:$f" >"$to"
    done
done
echo "$(find "$out" -name '*.cl' | wc -l) kernel files in $out"
