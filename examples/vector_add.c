// SPDX-License-Identifier: Apache-2.0
/* vector_add: c[i] = a[i] + b[i] on the device anygpu picks.
 *
 *   ANYGPU_DEVICE=opencl:0 ./vector_add [n]
 *
 * n defaults to 1000003, deliberately not a multiple of the work-group size:
 * the global size is rounded up and the kernel guards its index. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "anygpu.h"

static const char *kernel_source =
    "__kernel void vector_add(__global const float *a, __global const float *b,\n"
    "                         __global float *c, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

static int fail(const char *what) {
  fprintf(stderr, "vector_add: %s: %s\n", what, agpu_last_error());
  return 1;
}

int main(int argc, char **argv) {
  uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000003u;
  if (n == 0) {
    fprintf(stderr, "vector_add: n must be positive\n");
    return 2;
  }
  agpu_device *device;
  if (agpu_device_select(NULL, &device)) return fail("selecting a device");
  agpu_device_info info;
  if (agpu_device_get_info(device, &info)) return fail("device info");

  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  if (!a || !b || !c) return fail("host memory");
  srand(42);
  for (uint32_t i = 0; i < n; i++) {
    a[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    b[i] = (float)rand() / (float)RAND_MAX * 100.0f;
  }

  agpu_buffer *da, *db, *dc;
  size_t bytes = (size_t)n * sizeof(float);
  if (agpu_buffer_create(device, bytes, AGPU_BUFFER_READ_ONLY, &da) ||
      agpu_buffer_create(device, bytes, AGPU_BUFFER_READ_ONLY, &db) ||
      agpu_buffer_create(device, bytes, AGPU_BUFFER_WRITE_ONLY, &dc))
    return fail("creating buffers");
  if (agpu_buffer_write(NULL, da, 0, bytes, a) || agpu_buffer_write(NULL, db, 0, bytes, b))
    return fail("writing inputs");
  const uint32_t poison = 0x7fc00bad; /* a NaN: any element left unwritten fails below */
  if (agpu_buffer_fill(NULL, dc, 0, bytes, &poison, sizeof poison)) return fail("poisoning");

  agpu_program *program;
  agpu_program_desc desc = {.source = kernel_source, .source_name = "vector_add.cl"};
  if (agpu_program_build(device, &desc, &program)) return fail("building the kernel");
  agpu_kernel *kernel;
  if (agpu_kernel_create(program, "vector_add", &kernel)) return fail("creating the kernel");

  size_t local = 64;
  size_t global = (n + local - 1) / local * local;
  agpu_arg args[] = {agpu_arg_buffer(da), agpu_arg_buffer(db), agpu_arg_buffer(dc),
                     agpu_arg_u32(n)};
  if (agpu_launch(NULL, kernel, 1, &global, &local, 4, args)) return fail("launching");
  if (agpu_buffer_read(NULL, dc, 0, bytes, c)) return fail("reading the result");

  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; i++) {
    double expected = (double)a[i] + (double)b[i];
    /* One float addition: at most half an ulp of the result. */
    if (!(fabs(c[i] - expected) <= fabs(expected) * 6e-8 + 1e-30)) {
      if (wrong++ < 5)
        fprintf(stderr, "vector_add: c[%u] = %.9g, expected %.9g\n", i, c[i], expected);
    }
  }
  printf("vector_add: %u elements on %s (%s, %s): %s\n", n, info.selector, info.name,
         agpu_device_type_name(info.type), wrong ? "FAILED" : "verified");

  agpu_kernel_release(kernel);
  agpu_program_release(program);
  agpu_buffer_release(da);
  agpu_buffer_release(db);
  agpu_buffer_release(dc);
  free(a);
  free(b);
  free(c);
  return wrong ? 1 : 0;
}
