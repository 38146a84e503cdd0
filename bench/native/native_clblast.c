// SPDX-License-Identifier: Apache-2.0
/* The CLBlast baseline: CLBlastSgemm of order N (row-major, no transposes,
 * alpha 1, beta 0) on the device anygpu calls opencl:INDEX, each call
 * followed by clFinish; best of the iterations after the first (CLBlast
 * compiles its kernels on the first call, and tunes nothing at run time). */
#include <math.h>
#include <stdlib.h>

#include <clblast_c.h>

#include "native_common.h"
#include "native_opencl_device.h"
#include "sgemm_check.h"

typedef struct clblast_state {
  cl_context context;
  cl_command_queue queue;
  cl_mem a, b, c;
} clblast_state;

static void clblast_close(clblast_state *s) {
  if (s->c) clReleaseMemObject(s->c);
  if (s->b) clReleaseMemObject(s->b);
  if (s->a) clReleaseMemObject(s->a);
  if (s->queue) clReleaseCommandQueue(s->queue);
  if (s->context) clReleaseContext(s->context);
}

/* Times the calls into `times`; 0, or the exit status after a message. */
static int clblast_run(clblast_state *s, cl_device_id device, const float *a, const float *b,
                       float *c, size_t n, const native_options *options, double *times) {
  cl_int error = CL_SUCCESS;
  size_t bytes = n * n * sizeof(float);
  s->context = clCreateContext(NULL, 1, &device, NULL, NULL, &error);
  if (error != CL_SUCCESS) return native_fail("clCreateContext: %d", error);
  s->queue = clCreateCommandQueue(s->context, device, 0, &error);
  if (error != CL_SUCCESS) return native_fail("clCreateCommandQueue: %d", error);
  s->a =
      clCreateBuffer(s->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)a, &error);
  if (error == CL_SUCCESS)
    s->b = clCreateBuffer(s->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)b,
                          &error);
  if (error == CL_SUCCESS)
    s->c = clCreateBuffer(s->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, c, &error);
  if (error != CL_SUCCESS) return native_fail("clCreateBuffer of %zu bytes: %d", bytes, error);
  for (int k = 0; k < options->iterations; k++) {
    double start = native_now_ns();
    CLBlastStatusCode status =
        CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0f,
                     s->a, 0, n, s->b, 0, n, 0.0f, s->c, 0, n, &s->queue, NULL);
    if (status != CLBlastSuccess) return native_fail("CLBlastSgemm: status %d", (int)status);
    clFinish(s->queue);
    times[k] = native_now_ns() - start;
  }
  error = clEnqueueReadBuffer(s->queue, s->c, CL_TRUE, 0, bytes, c, 0, NULL, NULL);
  return error == CL_SUCCESS ? 0 : native_fail("clEnqueueReadBuffer: %d", error);
}

int main(int argc, char **argv) {
  native_options options;
  int status = native_parse(argc, argv, NATIVE_SGEMM, 1024, &options);
  if (status >= 0) return status;
  size_t n = options.size;
  if (n > 32768) return native_fail("--size is the matrix order N for sgemm; %zu is too large", n);
  cl_device_id device = NULL;
  status = native_opencl_device(options.device, &device);
  if (status) return status;
  char name[256] = "";
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
  native_note("device %d: %s, through CLBlast", options.device, name);
  float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
  float *c = malloc(n * n * sizeof *c);
  double *times = malloc((size_t)options.iterations * sizeof *times);
  clblast_state s = {0};
  if (!a || !b || !c || !times) {
    status = native_fail("no memory for three %zu x %zu matrices", n, n);
  } else {
    sgemm_fill(a, n * n, 1);
    sgemm_fill(b, n * n, 2);
    for (size_t i = 0; i < n * n; i++) c[i] = nanf("");
    status = clblast_run(&s, device, a, b, c, n, &options, times);
    size_t row = 0, col = 0;
    int wrong = status ? 0 : sgemm_check(a, b, c, n, &row, &col);
    if (wrong)
      status = native_fail("sgemm: %d of 16 checked entries wrong, e.g. C[%zu][%zu] = %g", wrong,
                           row, col, (double)c[row * n + col]);
    else if (!status)
      native_report("sgemm", sgemm_gflops(n, native_best_after_first(times, options.iterations)),
                    "GFLOP/s");
  }
  clblast_close(&s);
  free(a);
  free(b);
  free(c);
  free(times);
  return status;
}
