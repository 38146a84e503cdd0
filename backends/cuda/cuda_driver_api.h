// SPDX-License-Identifier: Apache-2.0
/* The CUDA Driver API as anygpu uses it: the project's own declarations, so
 * that the backend builds without the CUDA toolkit and loads libcuda.so.1 at
 * run time. Every value here is checked against the toolkit's cuda.h by
 * tests/test_cuda_abi.cpp where the toolkit is installed.
 *
 * Names are prefixed (agpu_cu_*, AGPU_CU*) so that this header and cuda.h
 * can be included together by that test. */
#ifndef AGPU_CUDA_DRIVER_API_H
#define AGPU_CUDA_DRIVER_API_H

#include <stddef.h>

typedef int agpu_cu_result; /* CUresult: an enum, 4 bytes */
typedef int agpu_cu_device; /* CUdevice */
typedef unsigned long long agpu_cu_deviceptr;
typedef struct agpu_cu_context_st *agpu_cu_context;
typedef struct agpu_cu_module_st *agpu_cu_module;
typedef struct agpu_cu_function_st *agpu_cu_function;
typedef struct agpu_cu_stream_st *agpu_cu_stream;
typedef struct agpu_cu_event_st *agpu_cu_event;
typedef int agpu_cu_device_attribute;   /* CUdevice_attribute */
typedef int agpu_cu_function_attribute; /* CUfunction_attribute */
typedef int agpu_cu_jit_option;         /* CUjit_option */
typedef struct agpu_cu_uuid {
  char bytes[16];
} agpu_cu_uuid;

/* X(NAME, value): the CUresult codes the backend names itself (the stub
 * library's cuGetErrorName answers only CUDA_ERROR_STUB_LIBRARY). */
#define AGPU_CUDA_RESULTS(X)                        \
  X(CUDA_SUCCESS, 0)                                \
  X(CUDA_ERROR_INVALID_VALUE, 1)                    \
  X(CUDA_ERROR_OUT_OF_MEMORY, 2)                    \
  X(CUDA_ERROR_NOT_INITIALIZED, 3)                  \
  X(CUDA_ERROR_DEINITIALIZED, 4)                    \
  X(CUDA_ERROR_STUB_LIBRARY, 34)                    \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, 36)      \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46)              \
  X(CUDA_ERROR_NO_DEVICE, 100)                      \
  X(CUDA_ERROR_INVALID_DEVICE, 101)                 \
  X(CUDA_ERROR_INVALID_IMAGE, 200)                  \
  X(CUDA_ERROR_INVALID_CONTEXT, 201)                \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209)              \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, 214)              \
  X(CUDA_ERROR_INVALID_PTX, 218)                    \
  X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221)         \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222)        \
  X(CUDA_ERROR_JIT_COMPILATION_DISABLED, 223)       \
  X(CUDA_ERROR_OPERATING_SYSTEM, 304)               \
  X(CUDA_ERROR_INVALID_HANDLE, 400)                 \
  X(CUDA_ERROR_NOT_FOUND, 500)                      \
  X(CUDA_ERROR_NOT_READY, 600)                      \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, 700)                \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701)        \
  X(CUDA_ERROR_LAUNCH_TIMEOUT, 702)                 \
  X(CUDA_ERROR_ASSERT, 710)                         \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714)           \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715)            \
  X(CUDA_ERROR_MISALIGNED_ADDRESS, 716)             \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717)          \
  X(CUDA_ERROR_INVALID_PC, 718)                     \
  X(CUDA_ERROR_LAUNCH_FAILED, 719)                  \
  X(CUDA_ERROR_NOT_SUPPORTED, 801)                  \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803)         \
  X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804) \
  X(CUDA_ERROR_UNKNOWN, 999)

/* X(NAME, value): the device attributes behind agpu_device_info. */
#define AGPU_CUDA_DEVICE_ATTRIBUTES(X)                  \
  X(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1)       \
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 2)             \
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 3)             \
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 4)             \
  X(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 5)              \
  X(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 6)              \
  X(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 7)              \
  X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 8) \
  X(CU_DEVICE_ATTRIBUTE_WARP_SIZE, 10)                  \
  X(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 13)                 \
  X(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 16)       \
  X(CU_DEVICE_ATTRIBUTE_INTEGRATED, 18)                 \
  X(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 33)                 \
  X(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 34)              \
  X(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 36)          \
  X(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 37)    \
  X(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 38)              \
  X(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 50)              \
  X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75)   \
  X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 76)   \
  X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97)

/* X(NAME, value): CUfunction_attribute, CUjit_option and flags. */
#define AGPU_CUDA_OTHER_ENUMS(X)                        \
  X(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0)         \
  X(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 1)             \
  X(CU_FUNC_ATTRIBUTE_NUM_REGS, 4)                      \
  X(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8) \
  X(CU_JIT_INFO_LOG_BUFFER, 3)                          \
  X(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, 4)               \
  X(CU_JIT_ERROR_LOG_BUFFER, 5)                         \
  X(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, 6)              \
  X(CU_STREAM_NON_BLOCKING, 1)                          \
  X(CU_EVENT_DEFAULT, 0)

#define AGPU_CUDA_ENUM(name, value) AGPU_##name = value,
enum { AGPU_CUDA_RESULTS(AGPU_CUDA_ENUM) };
enum { AGPU_CUDA_DEVICE_ATTRIBUTES(AGPU_CUDA_ENUM) };
enum { AGPU_CUDA_OTHER_ENUMS(AGPU_CUDA_ENUM) };
#undef AGPU_CUDA_ENUM

/* X(field, symbol, optional, parameters): every entry point the backend
 * calls, under the name libcuda exports (the _v2 ones where cuda.h maps the
 * plain name to them). The optional ones are newer than CUDA 11. */
#define AGPU_CUDA_SYMBOLS(X)                                                                      \
  X(cuInit, cuInit, false, (unsigned int flags))                                                  \
  X(cuDriverGetVersion, cuDriverGetVersion, false, (int *version))                                \
  X(cuGetErrorName, cuGetErrorName, false, (agpu_cu_result error, const char **text))             \
  X(cuGetErrorString, cuGetErrorString, false, (agpu_cu_result error, const char **text))         \
  X(cuDeviceGetCount, cuDeviceGetCount, false, (int *count))                                      \
  X(cuDeviceGet, cuDeviceGet, false, (agpu_cu_device * device, int ordinal))                      \
  X(cuDeviceGetName, cuDeviceGetName, false, (char *name, int length, agpu_cu_device device))     \
  X(cuDeviceGetAttribute, cuDeviceGetAttribute, false,                                            \
    (int *value, agpu_cu_device_attribute attribute, agpu_cu_device device))                      \
  X(cuDeviceTotalMem, cuDeviceTotalMem_v2, false, (size_t * bytes, agpu_cu_device device))        \
  X(cuDeviceGetUuid, cuDeviceGetUuid, true, (agpu_cu_uuid * uuid, agpu_cu_device device))         \
  X(cuDeviceGetUuid_v2, cuDeviceGetUuid_v2, true, (agpu_cu_uuid * uuid, agpu_cu_device device))   \
  X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, false,                                    \
    (agpu_cu_context * context, agpu_cu_device device))                                           \
  X(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2, false, (agpu_cu_device device))      \
  X(cuCtxPushCurrent, cuCtxPushCurrent_v2, false, (agpu_cu_context context))                      \
  X(cuCtxPopCurrent, cuCtxPopCurrent_v2, false, (agpu_cu_context * context))                      \
  X(cuMemGetInfo, cuMemGetInfo_v2, false, (size_t * free_bytes, size_t * total_bytes))            \
  X(cuMemAlloc, cuMemAlloc_v2, false, (agpu_cu_deviceptr * pointer, size_t bytes))                \
  X(cuMemFree, cuMemFree_v2, false, (agpu_cu_deviceptr pointer))                                  \
  X(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2, false,                                               \
    (agpu_cu_deviceptr dst, const void *src, size_t bytes, agpu_cu_stream stream))                \
  X(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2, false,                                               \
    (void *dst, agpu_cu_deviceptr src, size_t bytes, agpu_cu_stream stream))                      \
  X(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2, false,                                               \
    (agpu_cu_deviceptr dst, agpu_cu_deviceptr src, size_t bytes, agpu_cu_stream stream))          \
  X(cuMemsetD8Async, cuMemsetD8Async, false,                                                      \
    (agpu_cu_deviceptr dst, unsigned char value, size_t count, agpu_cu_stream stream))            \
  X(cuMemsetD16Async, cuMemsetD16Async, false,                                                    \
    (agpu_cu_deviceptr dst, unsigned short value, size_t count, agpu_cu_stream stream))           \
  X(cuMemsetD32Async, cuMemsetD32Async, false,                                                    \
    (agpu_cu_deviceptr dst, unsigned int value, size_t count, agpu_cu_stream stream))             \
  X(cuStreamCreate, cuStreamCreate, false, (agpu_cu_stream * stream, unsigned int flags))         \
  X(cuStreamDestroy, cuStreamDestroy_v2, false, (agpu_cu_stream stream))                          \
  X(cuStreamSynchronize, cuStreamSynchronize, false, (agpu_cu_stream stream))                     \
  X(cuEventCreate, cuEventCreate, false, (agpu_cu_event * event, unsigned int flags))             \
  X(cuEventDestroy, cuEventDestroy_v2, false, (agpu_cu_event event))                              \
  X(cuEventRecord, cuEventRecord, false, (agpu_cu_event event, agpu_cu_stream stream))            \
  X(cuEventSynchronize, cuEventSynchronize, false, (agpu_cu_event event))                         \
  X(cuEventElapsedTime, cuEventElapsedTime, false,                                                \
    (float *milliseconds, agpu_cu_event start, agpu_cu_event end))                                \
  X(cuModuleLoadDataEx, cuModuleLoadDataEx, false,                                                \
    (agpu_cu_module * module, const void *image, unsigned int count, agpu_cu_jit_option *options, \
     void **values))                                                                              \
  X(cuModuleUnload, cuModuleUnload, false, (agpu_cu_module module))                               \
  X(cuModuleGetFunction, cuModuleGetFunction, false,                                              \
    (agpu_cu_function * function, agpu_cu_module module, const char *name))                       \
  X(cuFuncGetAttribute, cuFuncGetAttribute, false,                                                \
    (int *value, agpu_cu_function_attribute attribute, agpu_cu_function function))                \
  X(cuFuncSetAttribute, cuFuncSetAttribute, false,                                                \
    (agpu_cu_function function, agpu_cu_function_attribute attribute, int value))                 \
  X(cuFuncGetParamInfo, cuFuncGetParamInfo, true,                                                 \
    (agpu_cu_function function, size_t index, size_t * offset, size_t * size))                    \
  X(cuLaunchKernel, cuLaunchKernel, false,                                                        \
    (agpu_cu_function function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,    \
     unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes, \
     agpu_cu_stream stream, void **params, void **extra))

#define AGPU_CUDA_FN_TYPE(field, symbol, optional, parameters) \
  typedef agpu_cu_result(*agpu_cu_pfn_##field) parameters;
AGPU_CUDA_SYMBOLS(AGPU_CUDA_FN_TYPE)
#undef AGPU_CUDA_FN_TYPE

/* NVRTC, loaded on the first build (cuda_nvrtc.c). */
typedef int agpu_nvrtc_result; /* nvrtcResult */
typedef struct agpu_nvrtc_program_st *agpu_nvrtc_program;

#define AGPU_NVRTC_RESULTS(X)      \
  X(NVRTC_SUCCESS, 0)              \
  X(NVRTC_ERROR_OUT_OF_MEMORY, 1)  \
  X(NVRTC_ERROR_INVALID_OPTION, 5) \
  X(NVRTC_ERROR_COMPILATION, 6)

#define AGPU_CUDA_ENUM(name, value) AGPU_##name = value,
enum { AGPU_NVRTC_RESULTS(AGPU_CUDA_ENUM) };
#undef AGPU_CUDA_ENUM

/* X(field, optional, parameters); nvrtcGetErrorString returns a string. */
#define AGPU_NVRTC_SYMBOLS(X)                                                              \
  X(nvrtcVersion, false, (int *major, int *minor))                                         \
  X(nvrtcGetNumSupportedArchs, true, (int *count))                                         \
  X(nvrtcGetSupportedArchs, true, (int *arches))                                           \
  X(nvrtcCreateProgram, false,                                                             \
    (agpu_nvrtc_program * program, const char *source, const char *name, int header_count, \
     const char *const *headers, const char *const *include_names))                        \
  X(nvrtcDestroyProgram, false, (agpu_nvrtc_program * program))                            \
  X(nvrtcCompileProgram, false,                                                            \
    (agpu_nvrtc_program program, int option_count, const char *const *options))            \
  X(nvrtcGetPTXSize, false, (agpu_nvrtc_program program, size_t * size))                   \
  X(nvrtcGetPTX, false, (agpu_nvrtc_program program, char *ptx))                           \
  X(nvrtcGetCUBINSize, true, (agpu_nvrtc_program program, size_t * size))                  \
  X(nvrtcGetCUBIN, true, (agpu_nvrtc_program program, char *cubin))                        \
  X(nvrtcGetProgramLogSize, false, (agpu_nvrtc_program program, size_t * size))            \
  X(nvrtcGetProgramLog, false, (agpu_nvrtc_program program, char *log))

#define AGPU_NVRTC_FN_TYPE(field, optional, parameters) \
  typedef agpu_nvrtc_result(*agpu_nvrtc_pfn_##field) parameters;
AGPU_NVRTC_SYMBOLS(AGPU_NVRTC_FN_TYPE)
#undef AGPU_NVRTC_FN_TYPE
typedef const char *(*agpu_nvrtc_pfn_nvrtcGetErrorString)(agpu_nvrtc_result result);

#endif /* AGPU_CUDA_DRIVER_API_H */
