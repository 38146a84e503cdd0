// SPDX-License-Identifier: Apache-2.0
/* The OpenCL baseline: the triad and an empty kernel through the ICD loader,
 * on the device anygpu calls opencl:INDEX (platforms in the loader's order,
 * each platform's devices of every type in its order). Work-groups of 256
 * items (fewer when the kernel allows fewer), the global size rounded up to
 * a multiple; on a CPU-type device the driver's choice of group size, as
 * BabelStream's OpenCL model leaves it (PoCL: 4096). Each launch is followed
 * by clFinish. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

#include "native_common.h"
#include "native_opencl_device.h"
#include "triad_data.h"

static const char source[] =
    "__kernel void empty(void) {}\n"
    "__kernel void triad(__global float *a, __global const float *b, __global const float *c,\n"
    "                    float s, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) a[i] = b[i] + s * c[i];\n"
    "}\n";

typedef struct cl_state {
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  cl_program program;
} cl_state;

#define CL_TRY(call, what)                                        \
  do {                                                            \
    cl_int e_ = (call);                                           \
    if (e_ != CL_SUCCESS) return native_fail("%s: %d", what, e_); \
  } while (0)

static int open_state(int index, cl_state *cl) {
  int status = native_opencl_device(index, &cl->device);
  if (status) return status;
  char name[256] = "";
  clGetDeviceInfo(cl->device, CL_DEVICE_NAME, sizeof name, name, NULL);
  cl_int error = CL_SUCCESS;
  cl->context = clCreateContext(NULL, 1, &cl->device, NULL, NULL, &error);
  CL_TRY(error, "clCreateContext");
  cl->queue = clCreateCommandQueue(cl->context, cl->device, 0, &error);
  CL_TRY(error, "clCreateCommandQueue");
  const char *text = source;
  cl->program = clCreateProgramWithSource(cl->context, 1, &text, NULL, &error);
  CL_TRY(error, "clCreateProgramWithSource");
  if (clBuildProgram(cl->program, 1, &cl->device, "", NULL, NULL) != CL_SUCCESS) {
    char log[2048] = "";
    clGetProgramBuildInfo(cl->program, cl->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    return native_fail("clBuildProgram failed: %s", log);
  }
  native_note("device %d: %s", index, name);
  return 0;
}

static void close_state(cl_state *cl) {
  if (cl->program) clReleaseProgram(cl->program);
  if (cl->queue) clReleaseCommandQueue(cl->queue);
  if (cl->context) clReleaseContext(cl->context);
}

static int time_triad(cl_state *cl, cl_kernel kernel, cl_mem a, const native_options *options,
                      double *times) {
  size_t n = options->size, local = 256, allowed = 0;
  CL_TRY(clGetKernelWorkGroupInfo(kernel, cl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof allowed,
                                  &allowed, NULL),
         "clGetKernelWorkGroupInfo");
  while (local > allowed && local > 1) local /= 2;
  cl_device_type type = 0;
  clGetDeviceInfo(cl->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  bool driver_local = (type & CL_DEVICE_TYPE_CPU) != 0;
  size_t global = driver_local ? n : (n + local - 1) / local * local;
  if (driver_local)
    native_note("triad: global %zu, local chosen by the driver", global);
  else
    native_note("triad: global %zu, local %zu", global, local);
  for (int k = 0; k < options->iterations; k++) {
    double start = native_now_ns();
    CL_TRY(clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &global, driver_local ? NULL : &local,
                                  0, NULL, NULL),
           "clEnqueueNDRangeKernel(triad)");
    CL_TRY(clFinish(cl->queue), "clFinish");
    times[k] = native_now_ns() - start;
  }
  float *result = malloc(n * sizeof *result);
  if (!result) return native_fail("out of memory");
  cl_int error =
      clEnqueueReadBuffer(cl->queue, a, CL_TRUE, 0, n * sizeof(float), result, 0, NULL, NULL);
  size_t wrong = triad_first_wrong(result, n);
  int status = 0;
  if (error != CL_SUCCESS)
    status = native_fail("clEnqueueReadBuffer: %d", error);
  else if (wrong < n)
    status = native_fail("triad: a[%zu] is %g, expected %g", wrong, (double)result[wrong],
                         (double)triad_expected(wrong));
  free(result);
  return status;
}

static int run_triad(cl_state *cl, const native_options *options) {
  size_t n = options->size, bytes = n * sizeof(float);
  if (n > UINT32_MAX) return native_fail("--size above 2^32 - 1");
  float *host = malloc(bytes);
  double *times = malloc((size_t)options->iterations * sizeof *times);
  cl_int error = CL_SUCCESS;
  cl_mem buffers[3] = {NULL, NULL, NULL};
  cl_kernel kernel = clCreateKernel(cl->program, "triad", &error);
  int status = !host || !times ? native_fail("out of memory") : 0;
  for (int i = 0; i < 3 && status == 0; i++) {
    buffers[i] = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
    if (error != CL_SUCCESS) status = native_fail("clCreateBuffer of %zu bytes: %d", bytes, error);
    for (size_t j = 0; j < n && status == 0; j++)
      host[j] = i == 0 ? nanf("") : i == 1 ? triad_b(j) : triad_c(j);
    if (status == 0 && (error = clEnqueueWriteBuffer(cl->queue, buffers[i], CL_TRUE, 0, bytes, host,
                                                     0, NULL, NULL)) != CL_SUCCESS)
      status = native_fail("clEnqueueWriteBuffer: %d", error);
  }
  float s = TRIAD_SCALAR;
  cl_uint count = (cl_uint)n;
  if (status == 0 && kernel &&
      (clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffers[0]) != CL_SUCCESS ||
       clSetKernelArg(kernel, 1, sizeof(cl_mem), &buffers[1]) != CL_SUCCESS ||
       clSetKernelArg(kernel, 2, sizeof(cl_mem), &buffers[2]) != CL_SUCCESS ||
       clSetKernelArg(kernel, 3, sizeof s, &s) != CL_SUCCESS ||
       clSetKernelArg(kernel, 4, sizeof count, &count) != CL_SUCCESS))
    status = native_fail("clSetKernelArg failed");
  if (status == 0 && !kernel) status = native_fail("clCreateKernel(triad): %d", error);
  if (status == 0) status = time_triad(cl, kernel, buffers[0], options, times);
  if (status == 0)
    native_report("triad", triad_gbps(n, native_best_after_first(times, options->iterations)),
                  "GB/s");
  for (int i = 0; i < 3; i++)
    if (buffers[i]) clReleaseMemObject(buffers[i]);
  if (kernel) clReleaseKernel(kernel);
  free(host);
  free(times);
  return status;
}

static int run_roundtrip(cl_state *cl, const native_options *options) {
  cl_int error = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(cl->program, "empty", &error);
  CL_TRY(error, "clCreateKernel(empty)");
  int reps = native_roundtrip_reps(options);
  double *times = malloc((size_t)reps * sizeof *times);
  if (!times) return native_fail("out of memory");
  size_t one = 1;
  for (int rep = -100; rep < reps && error == CL_SUCCESS; rep++) { /* negative: warm up */
    double start = native_now_ns();
    error = clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL);
    if (error == CL_SUCCESS) error = clFinish(cl->queue);
    if (rep >= 0) times[rep] = native_now_ns() - start;
  }
  if (error == CL_SUCCESS)
    native_report("launch_roundtrip", native_median(times, reps) / 1e3, "us");
  free(times);
  clReleaseKernel(kernel);
  CL_TRY(error, "launching the empty kernel");
  return 0;
}

int main(int argc, char **argv) {
  native_options options;
  int status = native_parse(argc, argv, NATIVE_TRIAD | NATIVE_ROUNDTRIP, 1u << 25, &options);
  if (status >= 0) return status;
  cl_state cl;
  memset(&cl, 0, sizeof cl);
  status = open_state(options.device, &cl);
  if (status == 0 && options.benches & NATIVE_TRIAD) status = run_triad(&cl, &options);
  if (status == 0 && options.benches & NATIVE_ROUNDTRIP) status = run_roundtrip(&cl, &options);
  close_state(&cl);
  return status;
}
