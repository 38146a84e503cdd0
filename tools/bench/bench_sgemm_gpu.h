// SPDX-License-Identifier: Apache-2.0
/* The GPU sgemm's shapes (sgemm_gpu in bench_sgemm.cl): `anygpu bench` tunes
 * among them on GPU devices, tests/test_sgemm_gpu.c checks each on every
 * device against a double-precision reference and hands them to the ptxas
 * check (tests/test_sgemm_ptxas.py). A work-group is (BN/TN) x (BM/TM)
 * work-items, each computing TM x TN elements of a BM x BN block of C; the
 * double-buffered tiles take 2 BK (BM + BN) floats of local memory. */
#ifndef AGPU_BENCH_SGEMM_GPU_H
#define AGPU_BENCH_SGEMM_GPU_H

#include <stdint.h>
#include <stdio.h>

typedef struct sgemm_gpu_shape {
  const char *name; /* remembered in the tuning cache */
  uint32_t bm, bn, bk, tm, tn;
} sgemm_gpu_shape;

/* Each needs BM BK / 4 and BN BK / 4 to be multiples of the work-item count
 * (every work-item reads whole float4s of both tiles). */
static const sgemm_gpu_shape sgemm_gpu_shapes[] = {
    {"gpu128x128_8x8", 128, 128, 8, 8, 8},
    {"gpu128x64_8x4", 128, 64, 16, 8, 4},
    {"gpu64x64_4x4", 64, 64, 16, 4, 4},
};
#define SGEMM_GPU_SHAPES (sizeof sgemm_gpu_shapes / sizeof sgemm_gpu_shapes[0])

static inline uint32_t sgemm_gpu_threads(const sgemm_gpu_shape *s) {
  return (s->bn / s->tn) * (s->bm / s->tm);
}
static inline uint64_t sgemm_gpu_local_bytes(const sgemm_gpu_shape *s) {
  return 2ull * s->bk * (s->bm + s->bn) * sizeof(float);
}
/* The build options (bench_sgemm.cl's other kernels need TILE and ROWS). */
static inline void sgemm_gpu_options(const sgemm_gpu_shape *s, char *out, size_t size) {
  snprintf(out, size,
           "-DTILE=1 -DROWS=1 -DGPU_BM=%u -DGPU_BN=%u -DGPU_BK=%u -DGPU_TM=%u -DGPU_TN=%u", s->bm,
           s->bn, s->bk, s->tm, s->tn);
}
/* The launch for order n: any n, the last blocks partly outside C. */
static inline void sgemm_gpu_launch_size(const sgemm_gpu_shape *s, uint32_t n, size_t global[2],
                                         size_t local[2]) {
  local[0] = s->bn / s->tn, local[1] = s->bm / s->tm;
  global[0] = (size_t)(n + s->bn - 1) / s->bn * local[0];
  global[1] = (size_t)(n + s->bm - 1) / s->bm * local[1];
}

#endif
