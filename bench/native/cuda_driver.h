// SPDX-License-Identifier: Apache-2.0
/* The CUDA Driver API, loaded at run time from libcuda.so.1 (the build
 * machine may have only the toolkit's stub), and the device anygpu calls
 * cuda:INDEX: the driver's ordinal INDEX (after CUDA_VISIBLE_DEVICES), with
 * its primary context made current (the one the CUDA runtime and cuBLAS
 * use). */
#ifndef AGPU_BENCH_NATIVE_CUDA_DRIVER_H
#define AGPU_BENCH_NATIVE_CUDA_DRIVER_H

#include <cuda.h>

typedef struct cuda_driver {
  void *library;
  CUdevice device;
  CUcontext context;
  char name[256];
  CUresult (*init)(unsigned int);
  CUresult (*device_count)(int *);
  CUresult (*device_get)(CUdevice *, int);
  CUresult (*device_name)(char *, int, CUdevice);
  CUresult (*primary_retain)(CUcontext *, CUdevice);
  CUresult (*primary_release)(CUdevice);
  CUresult (*context_set)(CUcontext);
  CUresult (*context_synchronize)(void);
  CUresult (*module_load)(CUmodule *, const void *);
  CUresult (*module_function)(CUfunction *, CUmodule, const char *);
  CUresult (*module_unload)(CUmodule);
  CUresult (*alloc)(CUdeviceptr *, size_t);
  CUresult (*free)(CUdeviceptr);
  CUresult (*to_device)(CUdeviceptr, const void *, size_t);
  CUresult (*to_host)(void *, CUdeviceptr, size_t);
  CUresult (*set32)(CUdeviceptr, unsigned int, size_t);
  CUresult (*launch)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
                     unsigned int, unsigned int, unsigned int, CUstream, void **, void **);
  CUresult (*stream_create)(CUstream *, unsigned int);
  CUresult (*stream_destroy)(CUstream);
  CUresult (*stream_synchronize)(CUstream);
  CUresult (*error_string)(CUresult, const char **);
} cuda_driver;

/* Loads the driver and makes device `index`'s primary context current.
 * 0, 77 when there is no driver or no such device, 1 on a failure (with a
 * message on stderr). */
int cuda_driver_open(cuda_driver *cu, int index);
void cuda_driver_close(cuda_driver *cu);
/* The driver's words for `result`. */
const char *cuda_driver_error(const cuda_driver *cu, CUresult result);

#endif
