// SPDX-License-Identifier: Apache-2.0
/* The cuBLAS baseline: cublasSgemm of order N on device cuda:INDEX (row-major
 * C = A B, computed as the column-major C^T = B^T A^T; alpha 1, beta 0; the
 * default math mode, so FP32 without TF32 unless NVIDIA_TF32_OVERRIDE says
 * otherwise), best of the iterations after the first, each synchronised.
 * cuBLAS and the driver are loaded at run time. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "cuda_driver.h"
#include "native_common.h"
#include "sgemm_check.h"

typedef struct cublas_api {
  void *library;
  cublasStatus_t (*create)(cublasHandle_t *);
  cublasStatus_t (*destroy)(cublasHandle_t);
  cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                          const float *, const float *, int, const float *, int, const float *,
                          float *, int);
} cublas_api;

static int load_cublas(cublas_api *api) {
  static const char *const names[] = {
#ifdef NATIVE_CUBLAS_PATH
      NATIVE_CUBLAS_PATH, /* the one found at configure time */
#endif
      "libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"};
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !api->library; i++)
    api->library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!api->library) return native_unavailable("no cuBLAS library: %s", dlerror());
  void *create = dlsym(api->library, "cublasCreate_v2");
  void *destroy = dlsym(api->library, "cublasDestroy_v2");
  void *sgemm = dlsym(api->library, "cublasSgemm_v2");
  if (!create || !destroy || !sgemm) return native_unavailable("cuBLAS lacks cublasSgemm_v2");
  memcpy(&api->create, &create, sizeof create);
  memcpy(&api->destroy, &destroy, sizeof destroy);
  memcpy(&api->sgemm, &sgemm, sizeof sgemm);
  return 0;
}

static int time_sgemm(cuda_driver *cu, const cublas_api *api, cublasHandle_t handle, CUdeviceptr *m,
                      const native_options *options, double *times) {
  int n = (int)options->size;
  const float one = 1.0f, zero = 0.0f;
  for (int k = 0; k < options->iterations; k++) {
    double start = native_now_ns();
    cublasStatus_t result =
        api->sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (const float *)m[1], n,
                   (const float *)m[0], n, &zero, (float *)m[2], n);
    if (result != CUBLAS_STATUS_SUCCESS) return native_fail("cublasSgemm: status %d", result);
    CUresult synced = cu->context_synchronize();
    if (synced != CUDA_SUCCESS)
      return native_fail("cuCtxSynchronize: %s", cuda_driver_error(cu, synced));
    times[k] = native_now_ns() - start;
  }
  return 0;
}

/* Device matrices m[0] = A, m[1] = B, m[2] = C from host[0..2]; times; check. */
static int run_sgemm(cuda_driver *cu, const cublas_api *api, cublasHandle_t handle, float **host,
                     const native_options *options) {
  size_t n = options->size, bytes = n * n * sizeof(float);
  CUdeviceptr m[3] = {0, 0, 0};
  double *times = malloc((size_t)options->iterations * sizeof *times);
  int status = times ? 0 : native_fail("out of memory");
  for (int i = 0; i < 3 && status == 0; i++) {
    CUresult result = cu->alloc(&m[i], bytes);
    if (result == CUDA_SUCCESS) result = cu->to_device(m[i], host[i], bytes);
    if (result != CUDA_SUCCESS)
      status = native_fail("a %zu-byte matrix: %s", bytes, cuda_driver_error(cu, result));
  }
  if (status == 0) status = time_sgemm(cu, api, handle, m, options, times);
  if (status == 0) {
    CUresult result = cu->to_host(host[2], m[2], bytes);
    size_t row = 0, col = 0;
    int wrong = result == CUDA_SUCCESS ? sgemm_check(host[0], host[1], host[2], n, &row, &col) : 0;
    if (result != CUDA_SUCCESS)
      status = native_fail("cuMemcpyDtoH: %s", cuda_driver_error(cu, result));
    else if (wrong)
      status = native_fail("sgemm: %d of 16 checked entries wrong, e.g. C[%zu][%zu] = %g", wrong,
                           row, col, (double)host[2][row * n + col]);
    else
      native_report("sgemm", sgemm_gflops(n, native_best_after_first(times, options->iterations)),
                    "GFLOP/s");
  }
  for (int i = 0; i < 3; i++)
    if (m[i]) cu->free(m[i]);
  free(times);
  return status;
}

int main(int argc, char **argv) {
  native_options options;
  int status = native_parse(argc, argv, NATIVE_SGEMM, 2048, &options);
  if (status >= 0) return status;
  size_t n = options.size;
  if (n > 32768) return native_fail("--size is the matrix order N for sgemm; %zu is too large", n);
  cuda_driver cu;
  cublas_api api = {0};
  if ((status = cuda_driver_open(&cu, options.device)) != 0) {
    cuda_driver_close(&cu);
    return status;
  }
  cublasHandle_t handle = NULL;
  if ((status = load_cublas(&api)) == 0 && api.create(&handle) != CUBLAS_STATUS_SUCCESS)
    status = native_fail("cublasCreate failed");
  float *host[3] = {malloc(n * n * sizeof(float)), malloc(n * n * sizeof(float)),
                    malloc(n * n * sizeof(float))};
  if (status == 0 && (!host[0] || !host[1] || !host[2])) status = native_fail("out of memory");
  if (status == 0) {
    native_note("device %d: %s", options.device, cu.name);
    sgemm_fill(host[0], n * n, 1);
    sgemm_fill(host[1], n * n, 2);
    for (size_t i = 0; i < n * n; i++) host[2][i] = nanf("");
    status = run_sgemm(&cu, &api, handle, host, &options);
  }
  for (int i = 0; i < 3; i++) free(host[i]);
  if (handle) api.destroy(handle);
  if (api.library) dlclose(api.library);
  cuda_driver_close(&cu);
  return status;
}
