// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's own Driver API and NVRTC declarations
// (backends/cuda/cuda_driver_api.h) against the toolkit's cuda.h and nvrtc.h:
// every enum value, every type's size, and every entry point's signature
// (parameter count, and each parameter's size, pointer depth, constness and
// kind). The backend never includes cuda.h, so this is what says its calls
// match the library it loads.
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <type_traits>

#include "cuda_driver_api.h"

static int passed, failed;

static void check(bool ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    std::printf("FAIL: %s\n", what);
  }
}

template <typename T, typename = void>
struct is_complete : std::false_type {};
template <typename T>
struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

// Two types that the C ABI passes the same way.
template <typename A, typename B>
constexpr bool same_shape() {
  if constexpr (std::is_pointer_v<A> != std::is_pointer_v<B>) {
    return false;
  } else if constexpr (std::is_pointer_v<A>) {
    using PA = std::remove_pointer_t<A>;
    using PB = std::remove_pointer_t<B>;
    if constexpr (std::is_const_v<PA> != std::is_const_v<PB>)
      return false;
    else if constexpr (std::is_void_v<PA> || std::is_void_v<PB>)
      return std::is_void_v<PA> == std::is_void_v<PB>;
    else if constexpr (std::is_pointer_v<PA> || std::is_pointer_v<PB>)
      return same_shape<std::remove_cv_t<PA>, std::remove_cv_t<PB>>();
    else if constexpr (!is_complete<PA>::value || !is_complete<PB>::value)
      return is_complete<PA>::value == is_complete<PB>::value; /* opaque handles */
    else
      return sizeof(PA) == sizeof(PB) &&
             std::is_floating_point_v<PA> == std::is_floating_point_v<PB>;
  } else {
    constexpr bool integral_a = std::is_integral_v<A> || std::is_enum_v<A>;
    constexpr bool integral_b = std::is_integral_v<B> || std::is_enum_v<B>;
    if constexpr (integral_a != integral_b)
      return false;
    else if constexpr (std::is_integral_v<A> && std::is_integral_v<B>)
      return sizeof(A) == sizeof(B) && std::is_signed_v<A> == std::is_signed_v<B>;
    else
      return sizeof(A) == sizeof(B) && std::is_floating_point_v<A> == std::is_floating_point_v<B>;
  }
}

template <typename F, typename G>
struct same_function : std::false_type {};
template <typename R1, typename... A1, typename R2, typename... A2>
struct same_function<R1 (*)(A1...), R2 (*)(A2...)> {
  static constexpr bool value() {
    if constexpr (sizeof...(A1) != sizeof...(A2))
      return false;
    else
      return same_shape<R1, R2>() && (same_shape<A1, A2>() && ...);
  }
};

int main() {
  // Enum values.
#define CHECK_VALUE(name, value)                                               \
  check(static_cast<long long>(AGPU_##name) == static_cast<long long>(name) && \
            static_cast<long long>(name) == (value),                           \
        #name " matches cuda.h");
  AGPU_CUDA_RESULTS(CHECK_VALUE)
  AGPU_CUDA_DEVICE_ATTRIBUTES(CHECK_VALUE)
  AGPU_CUDA_OTHER_ENUMS(CHECK_VALUE)
  AGPU_NVRTC_RESULTS(CHECK_VALUE)
#undef CHECK_VALUE

  // Types.
  check(sizeof(agpu_cu_result) == sizeof(CUresult), "CUresult size");
  check(sizeof(agpu_cu_device) == sizeof(CUdevice), "CUdevice size");
  check(std::is_same_v<agpu_cu_deviceptr, CUdeviceptr>, "CUdeviceptr is unsigned long long");
  check(sizeof(agpu_cu_uuid) == sizeof(CUuuid) && sizeof(CUuuid) == 16, "CUuuid size");
  check(sizeof(agpu_cu_device_attribute) == sizeof(CUdevice_attribute), "CUdevice_attribute size");
  check(sizeof(agpu_cu_function_attribute) == sizeof(CUfunction_attribute),
        "CUfunction_attribute size");
  check(sizeof(agpu_cu_jit_option) == sizeof(CUjit_option), "CUjit_option size");
  check(sizeof(agpu_nvrtc_result) == sizeof(nvrtcResult), "nvrtcResult size");

  // Entry points: the symbol the backend resolves is the one cuda.h declares
  // (cuda.h maps plain names to the _v2 ones the same way).
#define CHECK_CUDA_FUNCTION(field, symbol, optional, parameters)          \
  check(same_function<agpu_cu_pfn_##field, decltype(&::symbol)>::value(), \
        #symbol " has cuda.h's signature");
  AGPU_CUDA_SYMBOLS(CHECK_CUDA_FUNCTION)
#undef CHECK_CUDA_FUNCTION
#define CHECK_NVRTC_FUNCTION(field, optional, parameters)                   \
  check(same_function<agpu_nvrtc_pfn_##field, decltype(&::field)>::value(), \
        #field " has nvrtc.h's signature");
  AGPU_NVRTC_SYMBOLS(CHECK_NVRTC_FUNCTION)
#undef CHECK_NVRTC_FUNCTION
  check(std::is_same_v<agpu_nvrtc_pfn_nvrtcGetErrorString, const char *(*)(agpu_nvrtc_result)> &&
            same_function<agpu_nvrtc_pfn_nvrtcGetErrorString,
                          decltype(&::nvrtcGetErrorString)>::value(),
        "nvrtcGetErrorString has nvrtc.h's signature");

  // The checks themselves can fail: a wrong declaration is caught.
  check(same_function<int (*)(unsigned long long *, size_t), decltype(&::cuMemAlloc_v2)>::value() &&
            !same_function<int (*)(unsigned int *, size_t), decltype(&::cuMemAlloc_v2)>::value() &&
            !same_function<int (*)(unsigned long long *), decltype(&::cuMemAlloc_v2)>::value() &&
            !same_function<int (*)(const char **, int), decltype(&::cuDeviceGetName)>::value() &&
            !same_function<int (*)(int), decltype(&::cuMemFree_v2)>::value() &&
            !same_function<int (*)(agpu_cu_context), decltype(&::cuCtxPopCurrent_v2)>::value(),
        "the signature check tells wrong declarations apart");

  std::printf("CUDA %d headers: %d passed, %d failed, 0 skipped\n", CUDA_VERSION, passed, failed);
  return failed ? 1 : 0;
}
