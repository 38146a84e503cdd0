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

enum { SGEMM_ON_GPU = 1, SGEMM_ON_CPU = 2 };

typedef struct sgemm_gpu_shape {
  const char *name; /* remembered in the tuning cache */
  uint32_t bm, bn, bk, tm, tn;
  unsigned devices; /* SGEMM_ON_GPU: tuned on GPU devices and checked by
                       ptxas; SGEMM_ON_CPU: tuned on CPU devices (PoCL) */
} sgemm_gpu_shape;

/* PoCL runs a work-group's work-items as loops over the group's tiles, so
 * the same kernel is tuned there too (docs/bench.md: 2x the CPU-tuned
 * variants at n = 1024). Each needs BM BK / 4 and BN BK / 4 to be multiples of the work-item count
 * (every work-item reads whole float4s of both tiles). */
static const sgemm_gpu_shape sgemm_gpu_shapes[] = {
    {"gpu128x128_8x8", 128, 128, 8, 8, 8, SGEMM_ON_GPU},
    {"gpu128x64_8x4", 128, 64, 16, 8, 4, SGEMM_ON_GPU},
    {"gpu64x64_4x4", 64, 64, 16, 4, 4, SGEMM_ON_GPU | SGEMM_ON_CPU},
    {"cpu64x64_4x4_k64", 64, 64, 64, 4, 4, SGEMM_ON_CPU},
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
