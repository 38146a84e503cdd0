// SPDX-License-Identifier: Apache-2.0
/* The CUDA Driver API baseline: the triad and an empty kernel from hand-
 * written PTX (cuda_kernels.ptx, JIT-compiled by the driver) on device
 * cuda:INDEX, blocks of 256 threads, one stream, each launch followed by
 * cuStreamSynchronize. The driver is loaded at run time (cuda_driver.c). */
#include <stdint.h>
#include <stdlib.h>

#include "cuda_driver.h"
#include "cuda_kernels_ptx.h" /* native_cuda_ptx, generated from cuda_kernels.ptx */
#include "native_common.h"
#include "triad_data.h"

typedef struct cuda_state {
  cuda_driver cu;
  CUmodule module;
  CUstream stream;
} cuda_state;

#define CU_TRY(st, call)                                                                   \
  do {                                                                                     \
    CUresult r_ = (call);                                                                  \
    if (r_ != CUDA_SUCCESS)                                                                \
      return native_fail("%s: %s (%d)", #call, cuda_driver_error(&(st)->cu, r_), (int)r_); \
  } while (0)

static int time_triad(cuda_state *st, CUdeviceptr *buffers, const native_options *options,
                      double *times) {
  CUfunction triad = NULL;
  CU_TRY(st, st->cu.module_function(&triad, st->module, "triad"));
  float s = TRIAD_SCALAR;
  uint32_t n = (uint32_t)options->size;
  void *args[] = {&buffers[0], &buffers[1], &buffers[2], &s, &n};
  unsigned int blocks = (unsigned int)((options->size + 255) / 256);
  native_note("triad: %u blocks of 256 threads", blocks);
  for (int k = 0; k < options->iterations; k++) {
    double start = native_now_ns();
    CU_TRY(st, st->cu.launch(triad, blocks, 1, 1, 256, 1, 1, 0, st->stream, args, NULL));
    CU_TRY(st, st->cu.stream_synchronize(st->stream));
    times[k] = native_now_ns() - start;
  }
  return 0;
}

static int fill_inputs(cuda_state *st, CUdeviceptr *buffers, float *host, size_t n) {
  CU_TRY(st, st->cu.set32(buffers[0], 0x7fc00000u, n)); /* NaN */
  for (size_t i = 0; i < n; i++) host[i] = triad_b(i);
  CU_TRY(st, st->cu.to_device(buffers[1], host, n * sizeof(float)));
  for (size_t i = 0; i < n; i++) host[i] = triad_c(i);
  CU_TRY(st, st->cu.to_device(buffers[2], host, n * sizeof(float)));
  return 0;
}

static int run_triad(cuda_state *st, const native_options *options) {
  size_t n = options->size;
  if (n > UINT32_MAX) return native_fail("--size above 2^32 - 1");
  CUdeviceptr buffers[3] = {0, 0, 0};
  float *host = malloc(n * sizeof *host);
  double *times = malloc((size_t)options->iterations * sizeof *times);
  int status = host && times ? 0 : native_fail("out of memory");
  for (int i = 0; i < 3 && status == 0; i++) {
    CUresult result = st->cu.alloc(&buffers[i], n * sizeof(float));
    if (result != CUDA_SUCCESS)
      status = native_fail("cuMemAlloc of %zu bytes: %s", n * sizeof(float),
                           cuda_driver_error(&st->cu, result));
  }
  if (status == 0) status = fill_inputs(st, buffers, host, n);
  if (status == 0) status = time_triad(st, buffers, options, times);
  if (status == 0) {
    CUresult result = st->cu.to_host(host, buffers[0], n * sizeof(float));
    size_t wrong = result == CUDA_SUCCESS ? triad_first_wrong(host, n) : 0;
    if (result != CUDA_SUCCESS)
      status = native_fail("cuMemcpyDtoH: %s", cuda_driver_error(&st->cu, result));
    else if (wrong < n)
      status = native_fail("triad: a[%zu] is %g, expected %g", wrong, (double)host[wrong],
                           (double)triad_expected(wrong));
    else
      native_report("triad", triad_gbps(n, native_best_after_first(times, options->iterations)),
                    "GB/s");
  }
  for (int i = 0; i < 3; i++)
    if (buffers[i]) st->cu.free(buffers[i]);
  free(host);
  free(times);
  return status;
}

static int time_roundtrips(cuda_state *st, CUfunction empty, int reps, double *times) {
  for (int rep = -100; rep < reps; rep++) { /* negative repetitions warm up */
    double start = native_now_ns();
    CU_TRY(st, st->cu.launch(empty, 1, 1, 1, 1, 1, 1, 0, st->stream, NULL, NULL));
    CU_TRY(st, st->cu.stream_synchronize(st->stream));
    if (rep >= 0) times[rep] = native_now_ns() - start;
  }
  return 0;
}

static int run_roundtrip(cuda_state *st, const native_options *options) {
  CUfunction empty = NULL;
  CU_TRY(st, st->cu.module_function(&empty, st->module, "empty"));
  int reps = native_roundtrip_reps(options);
  double *times = malloc((size_t)reps * sizeof *times);
  if (!times) return native_fail("out of memory");
  int status = time_roundtrips(st, empty, reps, times);
  if (status == 0) native_report("launch_roundtrip", native_median(times, reps) / 1e3, "us");
  free(times);
  return status;
}

static int open_state(cuda_state *st, int index) {
  int status = cuda_driver_open(&st->cu, index);
  if (status) return status;
  CU_TRY(st, st->cu.module_load(&st->module, native_cuda_ptx));
  CU_TRY(st, st->cu.stream_create(&st->stream, CU_STREAM_NON_BLOCKING));
  native_note("device %d: %s", index, st->cu.name);
  return 0;
}

static void close_state(cuda_state *st) {
  if (st->stream) st->cu.stream_destroy(st->stream);
  if (st->module) st->cu.module_unload(st->module);
  cuda_driver_close(&st->cu);
}

int main(int argc, char **argv) {
  native_options options;
  int status = native_parse(argc, argv, NATIVE_TRIAD | NATIVE_ROUNDTRIP, 1u << 25, &options);
  if (status >= 0) return status;
  cuda_state st = {0};
  status = open_state(&st, options.device);
  if (status == 0 && options.benches & NATIVE_TRIAD) status = run_triad(&st, &options);
  if (status == 0 && options.benches & NATIVE_ROUNDTRIP) status = run_roundtrip(&st, &options);
  close_state(&st);
  return status;
}
