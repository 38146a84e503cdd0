// SPDX-License-Identifier: Apache-2.0
/* The GPU sgemm of `anygpu bench` (sgemm_gpu in tools/bench/bench_sgemm.cl,
 * issue 22) on one device, every shape of tools/bench/bench_sgemm_gpu.h:
 * random A and B (bench/native/sgemm_check.h's sequence), orders that are
 * and are not multiples of the blocks (the last blocks partly outside C,
 * orders not a multiple of 4 take the scalar loads), and every element of C
 * against a double-precision product within (n + 2) epsilon times the sum
 * of the terms' magnitudes. C starts as NaN, so an element left unwritten
 * fails.
 *
 * Usage: test_sgemm_gpu SELECTOR     the check on that device
 *        test_sgemm_gpu --shapes     one line per shape: its name, "gpu"
 *                                    (tuned on GPUs) or "cpu", its work-items
 *                                    and build options (for the ptxas check) */
#include <math.h>

#include "agpu_test.h"
#include "bench_sgemm_gpu.h"
#include "sgemm_check.h"

static const char *selector_g;
static char *source_g;

static const uint32_t orders[] = {1, 3, 4, 64, 100, 127, 129, 200, 257};

static void one_shape(const sgemm_gpu_shape *shape) {
  agpu_device *device = agpu_test_device(selector_g);
  if (!device) SKIP("%s: %s", selector_g, agpu_last_error());
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  if (sgemm_gpu_threads(shape) > info.max_work_group_size ||
      sgemm_gpu_local_bytes(shape) > info.local_mem_bytes)
    SKIP("%s does not fit %s (%u work-items, %llu bytes of local memory)", shape->name, selector_g,
         sgemm_gpu_threads(shape), (unsigned long long)sgemm_gpu_local_bytes(shape));
  agpu_queue *queue = NULL;
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  char options[128];
  sgemm_gpu_options(shape, options, sizeof options);
  agpu_program_desc desc = {
      .source = source_g, .source_name = "bench_sgemm.cl", .options = options};
  CHECK_OK(agpu_queue_create(device, &queue));
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (program) CHECK_OK(agpu_kernel_create(program, "sgemm_gpu", &kernel));
  for (size_t o = 0; kernel && o < sizeof orders / sizeof orders[0]; o++) {
    uint32_t n = orders[o];
    size_t count = (size_t)n * n, bytes = count * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    agpu_buffer *ba = NULL, *bb = NULL, *bc = NULL;
    sgemm_fill(a, count, 1 + n);
    sgemm_fill(b, count, 1000 + n);
    float nan_value = NAN;
    CHECK_OK(agpu_buffer_create(device, bytes, 0, &ba));
    CHECK_OK(agpu_buffer_create(device, bytes, 0, &bb));
    CHECK_OK(agpu_buffer_create(device, bytes, 0, &bc));
    CHECK_OK(agpu_buffer_write(queue, ba, 0, bytes, a));
    CHECK_OK(agpu_buffer_write(queue, bb, 0, bytes, b));
    CHECK_OK(agpu_buffer_fill(queue, bc, 0, bytes, &nan_value, sizeof nan_value));
    size_t global[2], local[2];
    sgemm_gpu_launch_size(shape, n, global, local);
    agpu_arg args[4] = {agpu_arg_buffer(ba), agpu_arg_buffer(bb), agpu_arg_buffer(bc),
                        agpu_arg_u32(n)};
    CHECK_OK(agpu_launch(queue, kernel, 2, global, local, 4, args));
    CHECK_OK(agpu_buffer_read(queue, bc, 0, bytes, c));
    int wrong = 0;
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++) {
        double exact = 0, magnitude = 0;
        for (size_t k = 0; k < n; k++) {
          double term = (double)a[i * n + k] * b[k * n + j];
          exact += term;
          magnitude += fabs(term);
        }
        double got = c[i * n + j], bound = (n + 2) * (double)FLT_EPSILON * magnitude;
        if (!(fabs(got - exact) <= bound) && wrong++ < 3)
          printf("  %s on %s, n = %u: C[%zu][%zu] = %.9g, expected %.9g (bound %.3g)\n",
                 shape->name, selector_g, n, i, j, got, exact, bound);
      }
    CHECK(wrong == 0);
    /* The sequence is not degenerate: C is not all zero (a kernel that
     * wrote zeros would pass only where every product cancels). */
    CHECK(n < 4 || fabs(c[0]) + fabs(c[count - 1]) > 0);
    if (bc) agpu_buffer_release(bc);
    if (bb) agpu_buffer_release(bb);
    if (ba) agpu_buffer_release(ba);
    free(a), free(b), free(c);
  }
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
  if (queue) agpu_queue_release(queue);
}

static void shape_128x128_8x8(void) {
  one_shape(&sgemm_gpu_shapes[0]);
}
static void shape_128x64_8x4(void) {
  one_shape(&sgemm_gpu_shapes[1]);
}
static void shape_64x64_4x4(void) {
  one_shape(&sgemm_gpu_shapes[2]);
}
static void shape_64x64_4x4_k64(void) {
  one_shape(&sgemm_gpu_shapes[3]);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--shapes") == 0) {
    for (size_t s = 0; s < SGEMM_GPU_SHAPES; s++) {
      char options[128];
      sgemm_gpu_options(&sgemm_gpu_shapes[s], options, sizeof options);
      printf("%s %s %u %s\n", sgemm_gpu_shapes[s].name,
             sgemm_gpu_shapes[s].devices & SGEMM_ON_GPU ? "gpu" : "cpu",
             sgemm_gpu_threads(&sgemm_gpu_shapes[s]), options);
    }
    return 0;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: test_sgemm_gpu SELECTOR | --shapes\n");
    return 2;
  }
  _Static_assert(SGEMM_GPU_SHAPES == 4, "a case per shape");
  selector_g = argv[1];
  source_g = agpu_test_read_file(AGPU_SGEMM_SOURCE, NULL);
  if (!source_g) {
    printf("cannot read %s\n", AGPU_SGEMM_SOURCE);
    return 1;
  }
  RUN(shape_128x128_8x8);
  RUN(shape_128x64_8x4);
  RUN(shape_64x64_4x4);
  RUN(shape_64x64_4x4_k64);
  free(source_g);
  return agpu_test_finish();
}
