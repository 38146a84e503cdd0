// SPDX-License-Identifier: Apache-2.0
/* Loads the CUDA Driver API with dlopen; see cuda_driver.h. */
#include "cuda_driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "native_common.h"

/* The versioned names are the ones the current headers' macros mean. */
static const struct {
  const char *symbol;
  size_t offset;
} entry_points[] = {
    {"cuInit", offsetof(cuda_driver, init)},
    {"cuDeviceGetCount", offsetof(cuda_driver, device_count)},
    {"cuDeviceGet", offsetof(cuda_driver, device_get)},
    {"cuDeviceGetName", offsetof(cuda_driver, device_name)},
    {"cuDevicePrimaryCtxRetain", offsetof(cuda_driver, primary_retain)},
    {"cuDevicePrimaryCtxRelease_v2", offsetof(cuda_driver, primary_release)},
    {"cuCtxSetCurrent", offsetof(cuda_driver, context_set)},
    {"cuCtxSynchronize", offsetof(cuda_driver, context_synchronize)},
    {"cuModuleLoadData", offsetof(cuda_driver, module_load)},
    {"cuModuleGetFunction", offsetof(cuda_driver, module_function)},
    {"cuModuleUnload", offsetof(cuda_driver, module_unload)},
    {"cuMemAlloc_v2", offsetof(cuda_driver, alloc)},
    {"cuMemFree_v2", offsetof(cuda_driver, free)},
    {"cuMemcpyHtoD_v2", offsetof(cuda_driver, to_device)},
    {"cuMemcpyDtoH_v2", offsetof(cuda_driver, to_host)},
    {"cuMemsetD32_v2", offsetof(cuda_driver, set32)},
    {"cuLaunchKernel", offsetof(cuda_driver, launch)},
    {"cuStreamCreate", offsetof(cuda_driver, stream_create)},
    {"cuStreamDestroy_v2", offsetof(cuda_driver, stream_destroy)},
    {"cuStreamSynchronize", offsetof(cuda_driver, stream_synchronize)},
    {"cuGetErrorString", offsetof(cuda_driver, error_string)},
};

const char *cuda_driver_error(const cuda_driver *cu, CUresult result) {
  const char *text = NULL;
  if (cu->error_string && cu->error_string(result, &text) == CUDA_SUCCESS && text) return text;
  return "unknown CUDA error";
}

int cuda_driver_open(cuda_driver *cu, int index) {
  memset(cu, 0, sizeof *cu);
  cu->library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cu->library) return native_unavailable("no CUDA driver: %s", dlerror());
  for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++) {
    void *symbol = dlsym(cu->library, entry_points[i].symbol);
    if (!symbol)
      return native_unavailable("the CUDA driver lacks %s (too old?)", entry_points[i].symbol);
    memcpy((char *)cu + entry_points[i].offset, &symbol, sizeof symbol);
  }
  CUresult result = cu->init(0);
  if (result == CUDA_ERROR_STUB_LIBRARY)
    return native_unavailable("cuInit: libcuda.so.1 is the toolkit's stub, not a driver");
  if (result != CUDA_SUCCESS)
    return native_unavailable("cuInit: %s (%d)", cuda_driver_error(cu, result), (int)result);
  int count = 0;
  cu->device_count(&count);
  if (index >= count) return native_unavailable("no CUDA device %d (%d found)", index, count);
  if ((result = cu->device_get(&cu->device, index)) != CUDA_SUCCESS ||
      (result = cu->primary_retain(&cu->context, cu->device)) != CUDA_SUCCESS ||
      (result = cu->context_set(cu->context)) != CUDA_SUCCESS) {
    cu->context = NULL;
    return native_fail("opening CUDA device %d: %s", index, cuda_driver_error(cu, result));
  }
  cu->device_name(cu->name, sizeof cu->name, cu->device);
  return 0;
}

void cuda_driver_close(cuda_driver *cu) {
  if (cu->context) cu->primary_release(cu->device);
  if (cu->library) dlclose(cu->library);
  memset(cu, 0, sizeof *cu);
}
