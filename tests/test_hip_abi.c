// SPDX-License-Identifier: Apache-2.0
/* The HIP backend's own declarations (backends/hip/hip_api.h) against ROCm's
 * real headers, where they are installed (Debian: libamdhip64-dev): every
 * enum value and size the backend relies on is checked at compile time, and
 * the program reports the checks. Built without the headers, it says so and
 * exits 77 (skipped). */
#include "agpu_test.h"

#ifndef AGPU_HAVE_HIP_HEADERS

int main(void) {
  printf(
      "skipped: ROCm's HIP headers (hip/hip_runtime_api.h) were not found at configure time "
      "(Debian: apt install libamdhip64-dev)\n");
  printf("0 passed, 0 failed, 1 skipped\n");
  return 77;
}

#else

#include <stddef.h>

#include <hip/hip_runtime_api.h>
#include <hip/hip_version.h>
#include <hip/hiprtc.h>

#include "hip_api.h"

#define SAME(ours, theirs) _Static_assert((int)(ours) == (int)(theirs), #ours " != " #theirs);

/* hipError_t */
SAME(AGPU_hipSuccess, hipSuccess)
SAME(AGPU_hipErrorInvalidValue, hipErrorInvalidValue)
SAME(AGPU_hipErrorOutOfMemory, hipErrorOutOfMemory)
SAME(AGPU_hipErrorNotInitialized, hipErrorNotInitialized)
SAME(AGPU_hipErrorDeinitialized, hipErrorDeinitialized)
SAME(AGPU_hipErrorInvalidConfiguration, hipErrorInvalidConfiguration)
SAME(AGPU_hipErrorInsufficientDriver, hipErrorInsufficientDriver)
SAME(AGPU_hipErrorInvalidDeviceFunction, hipErrorInvalidDeviceFunction)
SAME(AGPU_hipErrorNoDevice, hipErrorNoDevice)
SAME(AGPU_hipErrorInvalidDevice, hipErrorInvalidDevice)
SAME(AGPU_hipErrorInvalidImage, hipErrorInvalidImage)
SAME(AGPU_hipErrorInvalidContext, hipErrorInvalidContext)
SAME(AGPU_hipErrorNoBinaryForGpu, hipErrorNoBinaryForGpu)
SAME(AGPU_hipErrorInvalidKernelFile, hipErrorInvalidKernelFile)
SAME(AGPU_hipErrorSharedObjectInitFailed, hipErrorSharedObjectInitFailed)
SAME(AGPU_hipErrorInvalidHandle, hipErrorInvalidHandle)
SAME(AGPU_hipErrorNotFound, hipErrorNotFound)
SAME(AGPU_hipErrorNotReady, hipErrorNotReady)
SAME(AGPU_hipErrorIllegalAddress, hipErrorIllegalAddress)
SAME(AGPU_hipErrorLaunchOutOfResources, hipErrorLaunchOutOfResources)
SAME(AGPU_hipErrorLaunchTimeOut, hipErrorLaunchTimeOut)
SAME(AGPU_hipErrorLaunchFailure, hipErrorLaunchFailure)
SAME(AGPU_hipErrorNotSupported, hipErrorNotSupported)
SAME(AGPU_hipErrorUnknown, hipErrorUnknown)

/* hipDeviceAttribute_t */
SAME(AGPU_hipDeviceAttributeClockRate, hipDeviceAttributeClockRate)
SAME(AGPU_hipDeviceAttributeIntegrated, hipDeviceAttributeIntegrated)
SAME(AGPU_hipDeviceAttributeL2CacheSize, hipDeviceAttributeL2CacheSize)
SAME(AGPU_hipDeviceAttributeMaxBlockDimX, hipDeviceAttributeMaxBlockDimX)
SAME(AGPU_hipDeviceAttributeMaxBlockDimY, hipDeviceAttributeMaxBlockDimY)
SAME(AGPU_hipDeviceAttributeMaxBlockDimZ, hipDeviceAttributeMaxBlockDimZ)
SAME(AGPU_hipDeviceAttributeMaxGridDimX, hipDeviceAttributeMaxGridDimX)
SAME(AGPU_hipDeviceAttributeMaxGridDimY, hipDeviceAttributeMaxGridDimY)
SAME(AGPU_hipDeviceAttributeMaxGridDimZ, hipDeviceAttributeMaxGridDimZ)
SAME(AGPU_hipDeviceAttributeMaxThreadsPerBlock, hipDeviceAttributeMaxThreadsPerBlock)
SAME(AGPU_hipDeviceAttributeMemoryBusWidth, hipDeviceAttributeMemoryBusWidth)
SAME(AGPU_hipDeviceAttributeMemoryClockRate, hipDeviceAttributeMemoryClockRate)
SAME(AGPU_hipDeviceAttributeMultiprocessorCount, hipDeviceAttributeMultiprocessorCount)
SAME(AGPU_hipDeviceAttributePciBusId, hipDeviceAttributePciBusId)
SAME(AGPU_hipDeviceAttributePciDeviceId, hipDeviceAttributePciDeviceId)
SAME(AGPU_hipDeviceAttributePciDomainID, hipDeviceAttributePciDomainID)
SAME(AGPU_hipDeviceAttributeMaxSharedMemoryPerBlock, hipDeviceAttributeMaxSharedMemoryPerBlock)
SAME(AGPU_hipDeviceAttributeWarpSize, hipDeviceAttributeWarpSize)

/* hipFunction_attribute, hiprtcResult */
SAME(AGPU_HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
SAME(AGPU_HIPRTC_SUCCESS, HIPRTC_SUCCESS)
SAME(AGPU_HIPRTC_ERROR_COMPILATION, HIPRTC_ERROR_COMPILATION)

/* Types passed by value or through pointers. */
_Static_assert(sizeof(agpu_hipUUID) == sizeof(hipUUID), "hipUUID size");
_Static_assert(sizeof(agpu_hipError_t) == sizeof(hipError_t), "hipError_t size");
_Static_assert(sizeof(agpu_hipDevice_t) == sizeof(hipDevice_t), "hipDevice_t size");
_Static_assert(sizeof(agpu_hipStream_t) == sizeof(hipStream_t), "hipStream_t size");
_Static_assert(sizeof(agpu_hipEvent_t) == sizeof(hipEvent_t), "hipEvent_t size");
_Static_assert(sizeof(agpu_hipModule_t) == sizeof(hipModule_t), "hipModule_t size");
_Static_assert(sizeof(agpu_hipFunction_t) == sizeof(hipFunction_t), "hipFunction_t size");
_Static_assert(sizeof(agpu_hipDeviceptr_t) == sizeof(hipDeviceptr_t), "hipDeviceptr_t size");
_Static_assert(sizeof(hipDeviceAttribute_t) == sizeof(int), "attributes are passed as int");

/* The properties struct that gcnArchName is read from. */
#if HIP_VERSION_MAJOR >= 6
_Static_assert(offsetof(hipDeviceProp_tR0600, gcnArchName) == AGPU_HIP_R0600_GCN_ARCH_NAME_OFFSET,
               "ROCm 6 gcnArchName offset");
_Static_assert(sizeof(hipDeviceProp_tR0600) <= AGPU_HIP_PROPS_BUFFER_SIZE, "props buffer");
#define AGPU_PROPS_CHECKED "hipDeviceProp_tR0600"
#else
_Static_assert(offsetof(hipDeviceProp_t, gcnArchName) == AGPU_HIP_R0000_GCN_ARCH_NAME_OFFSET,
               "ROCm 5 gcnArchName offset");
_Static_assert(sizeof(((hipDeviceProp_t *)0)->gcnArchName) == AGPU_HIP_GCN_ARCH_NAME_SIZE,
               "gcnArchName size");
_Static_assert(sizeof(hipDeviceProp_t) <= AGPU_HIP_PROPS_BUFFER_SIZE, "props buffer");
#define AGPU_PROPS_CHECKED "hipDeviceProp_t (ROCm 5)"
#endif

static void declarations_match_the_headers(void) {
  /* Everything is checked by the static assertions above; this records what. */
  printf(
      "  HIP headers %d.%d: hipError_t, hipDeviceAttribute_t, hiprtcResult values, handle "
      "sizes and %s's gcnArchName offset match hip_api.h\n",
      HIP_VERSION_MAJOR, HIP_VERSION_MINOR, AGPU_PROPS_CHECKED);
  CHECK(HIP_VERSION_MAJOR >= 5);
}

int main(void) {
  RUN(declarations_match_the_headers);
  return agpu_test_finish();
}

#endif
