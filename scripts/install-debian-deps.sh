#!/usr/bin/env bash
# Installs what anygpu needs to build and test on Debian 12: the compiler and
# build tools, the Khronos OpenCL headers, the OpenCL ICD loader with PoCL
# (a real OpenCL device on the CPU), clinfo (the tests compare with it),
# pkg-config and python3 (the CLI tests).
set -euo pipefail
packages=(
  gcc make cmake ninja-build pkg-config python3 clang libclang-rt-14-dev
  opencl-c-headers ocl-icd-libopencl1 ocl-icd-opencl-dev pocl-opencl-icd clinfo glslang-tools glslang-dev spirv-tools
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
