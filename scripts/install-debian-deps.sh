#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what anygpu needs to build and test on Debian 12: the compiler and
# build tools, the Khronos OpenCL headers, the OpenCL ICD loader with PoCL
# (a real OpenCL device on the CPU), clinfo (the tests compare with it),
# pkg-config and python3 (the CLI tests) with python3-venv (the Python
# package's stage: a virtual environment with pip), glslang and SPIRV-Tools (GLSL to
# SPIR-V, spirv-val), the Vulkan loader and headers with Mesa's lavapipe (a
# real Vulkan device on the CPU), the Khronos validation layer and
# vulkaninfo, and ROCm 5's HIP runtime (hiprtc lives in libamdhip64.so.5:
# the HIP translation is compiled for real, with no AMD GPU present) with its
# headers (libamdhip64-dev: only test_hip_abi reads them, to check the HIP
# backend's own declarations; the build needs none), and OpenBLAS
# (bench/native/native_openblas, the CPU sgemm baseline), CLBlast
# (native_clblast, the OpenCL sgemm baseline), and Chromium (the
# bench test renders anygpu bench --html headless), and for releases
# (docs/releasing.md) abigail-tools (abidw, abidiff: the ABI check) and
# dpkg-dev (dpkg-shlibdeps: the .deb's Depends), and Open MPI (openmpi-bin,
# libopenmpi-dev: tests/test_mpi.py runs anygpu --mpi under mpirun; anygpu
# loads libmpi.so.40 at run time and never links it).
set -euo pipefail
packages=(
  gcc make cmake ninja-build pkg-config python3 python3-venv clang libclang-rt-14-dev
  opencl-c-headers ocl-icd-libopencl1 ocl-icd-opencl-dev pocl-opencl-icd clinfo glslang-tools glslang-dev spirv-tools
  libvulkan1 libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libamdhip64-5 libhiprtc-builtins5 libamdhip64-dev
  libopenblas-dev libclblast-dev chromium
  abigail-tools dpkg-dev
  openmpi-bin libopenmpi-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-debian-deps: all ${#packages[@]} packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
