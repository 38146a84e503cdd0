// SPDX-License-Identifier: Apache-2.0
/* The project's own minimal declarations of the HIP runtime's module API and
 * of hiprtc: only what the backend calls, opened with dlopen at run time, so
 * that the build needs no ROCm SDK. The values are ROCm's (the same in ROCm 5
 * and 6 for everything below); tests/test_hip_abi.c checks them against the
 * real headers where those are installed. */
#ifndef AGPU_HIP_API_H
#define AGPU_HIP_API_H

#include <stddef.h>

typedef int agpu_hipError_t; /* hipError_t */
typedef int agpu_hipDevice_t;
typedef struct agpu_ihipStream *agpu_hipStream_t;
typedef struct agpu_ihipEvent *agpu_hipEvent_t;
typedef struct agpu_ihipModule *agpu_hipModule_t;
typedef struct agpu_ihipFunction *agpu_hipFunction_t;
typedef void *agpu_hipDeviceptr_t;
typedef struct agpu_hipUUID {
  char bytes[16];
} agpu_hipUUID;

/* hipError_t values the backend names itself (the library's own
 * hipGetErrorName is used when present). */
enum {
  AGPU_hipSuccess = 0,
  AGPU_hipErrorInvalidValue = 1,
  AGPU_hipErrorOutOfMemory = 2,
  AGPU_hipErrorNotInitialized = 3,
  AGPU_hipErrorDeinitialized = 4,
  AGPU_hipErrorInvalidConfiguration = 9,
  AGPU_hipErrorInsufficientDriver = 35,
  AGPU_hipErrorInvalidDeviceFunction = 98,
  AGPU_hipErrorNoDevice = 100,
  AGPU_hipErrorInvalidDevice = 101,
  AGPU_hipErrorInvalidImage = 200,
  AGPU_hipErrorInvalidContext = 201,
  AGPU_hipErrorNoBinaryForGpu = 209,
  AGPU_hipErrorInvalidKernelFile = 218,
  AGPU_hipErrorSharedObjectInitFailed = 303,
  AGPU_hipErrorInvalidHandle = 400,
  AGPU_hipErrorNotFound = 500,
  AGPU_hipErrorNotReady = 600,
  AGPU_hipErrorIllegalAddress = 700,
  AGPU_hipErrorLaunchOutOfResources = 701,
  AGPU_hipErrorLaunchTimeOut = 702,
  AGPU_hipErrorLaunchFailure = 719,
  AGPU_hipErrorNotSupported = 801,
  AGPU_hipErrorUnknown = 999,
};

/* hipDeviceAttribute_t: the CUDA-compatible range as renumbered in ROCm 5.0
 * and kept in ROCm 6. */
enum {
  AGPU_hipDeviceAttributeClockRate = 5,
  AGPU_hipDeviceAttributeIntegrated = 16,
  AGPU_hipDeviceAttributeL2CacheSize = 19,
  AGPU_hipDeviceAttributeMaxBlockDimX = 26,
  AGPU_hipDeviceAttributeMaxBlockDimY = 27,
  AGPU_hipDeviceAttributeMaxBlockDimZ = 28,
  AGPU_hipDeviceAttributeMaxGridDimX = 29,
  AGPU_hipDeviceAttributeMaxGridDimY = 30,
  AGPU_hipDeviceAttributeMaxGridDimZ = 31,
  AGPU_hipDeviceAttributeMaxThreadsPerBlock = 56,
  AGPU_hipDeviceAttributeMemoryBusWidth = 59,
  AGPU_hipDeviceAttributeMemoryClockRate = 60,
  AGPU_hipDeviceAttributeMultiprocessorCount = 63,
  AGPU_hipDeviceAttributePciBusId = 67,
  AGPU_hipDeviceAttributePciDeviceId = 68,
  AGPU_hipDeviceAttributePciDomainID = 69,
  AGPU_hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  AGPU_hipDeviceAttributeWarpSize = 87,
};

/* hipFunction_attribute */
enum { AGPU_HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0 };

/* hipDeviceProp_t has no arch attribute, so gcnArchName is read from the
 * properties struct, whose layout differs between versions: ROCm 5's
 * hipGetDeviceProperties fills 792 bytes with gcnArchName[256] at byte 396
 * (checked against ROCm 5.2's header by test_hip_abi); ROCm 6's
 * hipGetDevicePropertiesR0600 fills hipDeviceProp_tR0600 (1472 bytes) with
 * gcnArchName at byte 1160 (counted from ROCm 6's header: name[256],
 * uuid[16], luid[8], luidDeviceNodeMask, then the CUDA-like members, then
 * reserved[63] and hipReserved[32] before the HIP-only members). The
 * backend passes a zeroed buffer larger than either and takes the name only
 * when it reads "gfx...". */
#define AGPU_HIP_PROPS_BUFFER_SIZE 8192
#define AGPU_HIP_R0000_GCN_ARCH_NAME_OFFSET 396
#define AGPU_HIP_R0600_GCN_ARCH_NAME_OFFSET 1160
#define AGPU_HIP_GCN_ARCH_NAME_SIZE 256

/* hiprtcResult */
enum {
  AGPU_HIPRTC_SUCCESS = 0,
  AGPU_HIPRTC_ERROR_COMPILATION = 6,
};
typedef struct agpu_hiprtc_program *agpu_hiprtcProgram;

/* X(name, return type, parameters, optional): the runtime's entry points. */
#define AGPU_HIP_SYMBOLS(X)                                                                        \
  X(hipInit, agpu_hipError_t, (unsigned flags), false)                                             \
  X(hipGetDeviceCount, agpu_hipError_t, (int *count), false)                                       \
  X(hipGetErrorName, const char *, (agpu_hipError_t error), true)                                  \
  X(hipGetErrorString, const char *, (agpu_hipError_t error), true)                                \
  X(hipDriverGetVersion, agpu_hipError_t, (int *version), true)                                    \
  X(hipRuntimeGetVersion, agpu_hipError_t, (int *version), true)                                   \
  X(hipDeviceGet, agpu_hipError_t, (agpu_hipDevice_t * device, int ordinal), false)                \
  X(hipDeviceGetAttribute, agpu_hipError_t, (int *value, int attribute, int device), false)        \
  X(hipDeviceGetName, agpu_hipError_t, (char *name, int length, agpu_hipDevice_t device), false)   \
  X(hipDeviceTotalMem, agpu_hipError_t, (size_t * bytes, agpu_hipDevice_t device), false)          \
  X(hipDeviceGetPCIBusId, agpu_hipError_t, (char *bus_id, int length, int device), true)           \
  X(hipDeviceGetUuid, agpu_hipError_t, (agpu_hipUUID * uuid, agpu_hipDevice_t device), true)       \
  X(hipGetDeviceProperties, agpu_hipError_t, (void *props, int device), true)                      \
  X(hipGetDevicePropertiesR0600, agpu_hipError_t, (void *props, int device), true)                 \
  X(hipSetDevice, agpu_hipError_t, (int device), false)                                            \
  X(hipMemGetInfo, agpu_hipError_t, (size_t * free_bytes, size_t * total_bytes), false)            \
  X(hipMalloc, agpu_hipError_t, (void **pointer, size_t size), false)                              \
  X(hipFree, agpu_hipError_t, (void *pointer), false)                                              \
  X(hipMemcpyHtoDAsync, agpu_hipError_t,                                                           \
    (agpu_hipDeviceptr_t dst, void *src, size_t size, agpu_hipStream_t stream), false)             \
  X(hipMemcpyDtoHAsync, agpu_hipError_t,                                                           \
    (void *dst, agpu_hipDeviceptr_t src, size_t size, agpu_hipStream_t stream), false)             \
  X(hipMemcpyDtoDAsync, agpu_hipError_t,                                                           \
    (agpu_hipDeviceptr_t dst, agpu_hipDeviceptr_t src, size_t size, agpu_hipStream_t stream),      \
    false)                                                                                         \
  X(hipMemsetD8Async, agpu_hipError_t,                                                             \
    (agpu_hipDeviceptr_t dst, unsigned char value, size_t count, agpu_hipStream_t stream), false)  \
  X(hipMemsetD16Async, agpu_hipError_t,                                                            \
    (agpu_hipDeviceptr_t dst, unsigned short value, size_t count, agpu_hipStream_t stream), false) \
  X(hipMemsetD32Async, agpu_hipError_t,                                                            \
    (agpu_hipDeviceptr_t dst, int value, size_t count, agpu_hipStream_t stream), false)            \
  X(hipStreamCreateWithFlags, agpu_hipError_t, (agpu_hipStream_t * stream, unsigned flags), false) \
  X(hipStreamSynchronize, agpu_hipError_t, (agpu_hipStream_t stream), false)                       \
  X(hipStreamDestroy, agpu_hipError_t, (agpu_hipStream_t stream), false)                           \
  X(hipEventCreateWithFlags, agpu_hipError_t, (agpu_hipEvent_t * event, unsigned flags), false)    \
  X(hipEventRecord, agpu_hipError_t, (agpu_hipEvent_t event, agpu_hipStream_t stream), false)      \
  X(hipEventSynchronize, agpu_hipError_t, (agpu_hipEvent_t event), false)                          \
  X(hipEventElapsedTime, agpu_hipError_t,                                                          \
    (float *milliseconds, agpu_hipEvent_t start, agpu_hipEvent_t stop), false)                     \
  X(hipEventDestroy, agpu_hipError_t, (agpu_hipEvent_t event), false)                              \
  X(hipModuleLoadData, agpu_hipError_t, (agpu_hipModule_t * module, const void *image), false)     \
  X(hipModuleUnload, agpu_hipError_t, (agpu_hipModule_t module), false)                            \
  X(hipModuleGetFunction, agpu_hipError_t,                                                         \
    (agpu_hipFunction_t * function, agpu_hipModule_t module, const char *name), false)             \
  X(hipFuncGetAttribute, agpu_hipError_t,                                                          \
    (int *value, int attribute, agpu_hipFunction_t function), true)                                \
  X(hipModuleLaunchKernel, agpu_hipError_t,                                                        \
    (agpu_hipFunction_t function, unsigned grid_x, unsigned grid_y, unsigned grid_z,               \
     unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,                  \
     agpu_hipStream_t stream, void **params, void **extra),                                        \
    false)

/* hiprtc: in ROCm 5's libamdhip64, in libhiprtc from ROCm 6 (5.3+ has both). */
#define AGPU_HIPRTC_SYMBOLS(X)                                                             \
  X(hiprtcCreateProgram, int,                                                              \
    (agpu_hiprtcProgram * program, const char *source, const char *name, int header_count, \
     const char *const *headers, const char *const *include_names),                        \
    false)                                                                                 \
  X(hiprtcCompileProgram, int,                                                             \
    (agpu_hiprtcProgram program, int option_count, const char *const *options), false)     \
  X(hiprtcGetCodeSize, int, (agpu_hiprtcProgram program, size_t * size), false)            \
  X(hiprtcGetCode, int, (agpu_hiprtcProgram program, char *code), false)                   \
  X(hiprtcGetProgramLogSize, int, (agpu_hiprtcProgram program, size_t * size), false)      \
  X(hiprtcGetProgramLog, int, (agpu_hiprtcProgram program, char *log), false)              \
  X(hiprtcDestroyProgram, int, (agpu_hiprtcProgram * program), false)                      \
  X(hiprtcGetErrorString, const char *, (int result), true)                                \
  X(hiprtcVersion, int, (int *major, int *minor), true)

#endif /* AGPU_HIP_API_H */
