// SPDX-License-Identifier: Apache-2.0
/* The device anygpu calls opencl:INDEX: platforms in the loader's order,
 * each platform's devices of every type in its order. */
#include <stdlib.h>

#include "native_common.h"
#include "native_opencl_device.h"

/* The INDEXth device over all platforms; 77 when there is none. */
int native_opencl_device(int index, cl_device_id *device) {
  cl_uint platforms = 0;
  if (clGetPlatformIDs(0, NULL, &platforms) != CL_SUCCESS || platforms == 0)
    return native_unavailable("no OpenCL platform (no ICD found by the loader)");
  cl_platform_id *ids = calloc(platforms, sizeof *ids);
  if (!ids) return native_fail("out of memory");
  clGetPlatformIDs(platforms, ids, NULL);
  int seen = 0;
  for (cl_uint p = 0; p < platforms; p++) {
    cl_uint count = 0;
    if (clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, 0, NULL, &count) != CL_SUCCESS) continue;
    if (index < seen + (int)count) {
      cl_device_id *devices = calloc(count, sizeof *devices);
      if (!devices) break;
      clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, count, devices, NULL);
      *device = devices[index - seen];
      free(devices);
      free(ids);
      return 0;
    }
    seen += (int)count;
  }
  free(ids);
  return native_unavailable("no OpenCL device %d (%d found)", index, seen);
}
