// SPDX-License-Identifier: Apache-2.0
/* The OpenCL baselines' device lookup (native_opencl, native_clblast). */
#ifndef AGPU_BENCH_NATIVE_OPENCL_DEVICE_H
#define AGPU_BENCH_NATIVE_OPENCL_DEVICE_H

#include <CL/cl.h>

/* The INDEXth device over all platforms: 0, or the exit status (77 when
 * there is none) after a message. */
int native_opencl_device(int index, cl_device_id *device);

#endif
