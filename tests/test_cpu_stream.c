// SPDX-License-Identifier: Apache-2.0
/* cpu:0's streaming stores (kernels/emit_c_stream.c, docs/cpu-backend.md):
 * kernels whose __global outputs are only stored to at the global id give
 * the same bytes as a host reference, element by element, for sizes that are
 * not multiples of the chunk, the vector or the group (a partial last
 * group), groups whose first element is not aligned (37 floats, 100
 * doubles), groups of more than one chunk, 2-D groups, 1-byte and 2-byte
 * elements, grid-stride loops run as gangs, stores under `if (gid < n)`,
 * with outputs poisoned first and
 * the elements past the launch left poisoned. ANYGPU_CPU_STREAM_BYTES is 0 here unless the
 * environment says otherwise (ctest runs it a second time with "off": the ordinary stores), so
 * every launch of such a kernel streams. */
#include <math.h>
#include <stdbool.h>

#include "agpu_test.h"

static const char source[] =
    "__kernel void triad(__global double *a, __global const double *b,\n"
    "                    __global const double *c, double s) {\n"
    "  size_t i = get_global_id(0);\n"
    "  a[i] = b[i] + s * c[i];\n"
    "}\n"
    "__kernel void triad_f(__global float *a, __global const float *b, __global const float *c,\n"
    "                      float s) {\n"
    "  a[get_global_id(0)] = b[get_global_id(0)] + s * c[get_global_id(0)];\n"
    "}\n"
    "__kernel void narrow(__global uchar *o, __global ushort *h, __global const uint *x) {\n"
    "  uint i = get_global_id(0);\n"
    "  uint v = x[i];\n"
    "  o[i] = (uchar)(v * 7u);\n"
    "  h[i] = (ushort)(v >> 3);\n"
    "}\n"
    "__kernel void gs_triad(__global double *a, __global const double *b,\n"
    "                       __global const double *c, double s, uint n) {\n"
    "  for (uint i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "    a[i] = b[i] + s * c[i];\n"
    "}\n"
    "__kernel void gs_two(__global float *o, __global ushort *h, __global const float *x,\n"
    "                     ulong n) {\n"
    "  size_t lid = get_local_id(0);\n"
    "  for (size_t i = get_group_id(0) * get_local_size(0) + lid; i < n;\n"
    "       i += get_global_size(0)) {\n"
    "    float v = x[i];\n"
    "    o[i] = v * 2.0f;\n"
    "    h[i] = (ushort)(int)v;\n"
    "  }\n"
    "}\n"
    "__kernel void guarded(__global double *a, __global const double *b,\n"
    "                      __global const double *c, double s, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) a[i] = b[i] + s * c[i];\n"
    "}\n"
    "__kernel void guarded_two(__global float *o, __global int *h, __global const float *x,\n"
    "                          long n) {\n"
    "  long i = get_global_id(0);\n"
    "  if (n > i) {\n"
    "    float v = x[i];\n"
    "    o[i] = v + 1.0f;\n"
    "    h[i] = (int)v;\n"
    "  }\n"
    "}\n"
    "__kernel void saxpy(__global const double *x, __global double *y, double s) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = s * x[i] + y[i];\n"
    "}\n";

enum { SLACK = 13, POISON = 0xA5 };

typedef struct setup {
  agpu_device *device;
  agpu_program *program;
  agpu_queue *queue;
} setup;

static setup S;

/* A buffer of `count` elements of `size` bytes (plus SLACK), `data` or poison. */
static agpu_buffer *make_buffer(size_t count, size_t size, const void *data) {
  agpu_buffer *buffer = NULL;
  size_t bytes = (count + SLACK) * size;
  CHECK_OK(agpu_buffer_create(S.device, bytes, 0, &buffer));
  if (!buffer) return NULL;
  unsigned char *host = malloc(bytes);
  if (!host) return buffer;
  memset(host, POISON, bytes);
  if (data) memcpy(host, data, count * size);
  CHECK_OK(agpu_buffer_write(S.queue, buffer, 0, bytes, host));
  free(host);
  return buffer;
}

/* Reads a buffer back and counts the elements (of `size` bytes) that differ
 * from `want` in [0, count) or are not poison in the slack after them. */
static size_t wrong_bytes(agpu_buffer *buffer, size_t count, size_t size, const void *want) {
  size_t bytes = (count + SLACK) * size, wrong = 0;
  unsigned char *host = malloc(bytes);
  if (!host) return SIZE_MAX;
  CHECK_OK(agpu_buffer_read(S.queue, buffer, 0, bytes, host));
  for (size_t i = 0; i < count; i++)
    if (memcmp(host + i * size, (const unsigned char *)want + i * size, size) != 0) {
      if (wrong < 3) printf("  element %zu differs\n", i);
      wrong++;
    }
  for (size_t i = count * size; i < bytes; i++) wrong += host[i] != POISON;
  free(host);
  return wrong;
}

static bool launch(const char *name, uint32_t dims, const size_t *global, const size_t *local,
                   uint32_t nargs, const agpu_arg *args) {
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(S.program, name, &kernel));
  if (!kernel) return false;
  /* local[0] == 0: the core's choice, with a partial last group */
  agpu_status status =
      agpu_launch(S.queue, kernel, dims, global, local[0] ? local : NULL, nargs, args);
  CHECK_OK(status);
  CHECK_OK(agpu_queue_finish(S.queue));
  agpu_kernel_release(kernel);
  return status == AGPU_SUCCESS;
}

typedef struct shape {
  size_t global[2], local[2];
  uint32_t dims;
} shape;

/* local 0: the core's choice (a partial last group); 600: chunks of 256,
 * 256 and 88; 37 and 100: groups that start off the vectors' alignment */
static const shape shapes[] = {
    {{4099, 1}, {0, 1}, 1}, {{1003, 1}, {0, 1}, 1},   {{1200, 1}, {600, 1}, 1},
    {{777, 1}, {37, 1}, 1}, {{1000, 1}, {100, 1}, 1}, {{1, 1}, {1, 1}, 1},
    {{100, 3}, {20, 3}, 2}, {{70001, 1}, {0, 1}, 1},
};

static void triad_doubles(void) {
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
    const shape *sh = &shapes[k];
    size_t n = sh->global[0];
    double *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c), *want = malloc(n * 8);
    uint64_t seed = 0x57e4 + n;
    for (size_t i = 0; i < n; i++) {
      b[i] = agpu_test_randf(&seed, -100.0f, 100.0f) / 3.0;
      c[i] = agpu_test_randf(&seed, -100.0f, 100.0f) / 7.0;
      volatile double product = 0.4 * c[i]; /* two roundings, as the kernel */
      want[i] = b[i] + product;
    }
    agpu_buffer *A = make_buffer(n, 8, NULL), *B = make_buffer(n, 8, b), *C = make_buffer(n, 8, c);
    agpu_arg args[] = {agpu_arg_buffer(A), agpu_arg_buffer(B), agpu_arg_buffer(C),
                       agpu_arg_f64(0.4)};
    if (A && B && C && launch("triad", sh->dims, sh->global, sh->local, 4, args)) {
      size_t wrong = wrong_bytes(A, n, 8, want);
      if (wrong)
        printf("  triad %zu x %zu in groups of %zu: %zu wrong\n", n, sh->global[1], sh->local[0],
               wrong);
      CHECK(wrong == 0);
    }
    agpu_buffer_release(A), agpu_buffer_release(B), agpu_buffer_release(C);
    free(b), free(c), free(want);
  }
}

static void triad_floats(void) {
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
    const shape *sh = &shapes[k];
    size_t n = sh->global[0];
    float *b = malloc(n * 4), *c = malloc(n * 4), *want = malloc(n * 4);
    uint64_t seed = 0xf10a7 + n;
    for (size_t i = 0; i < n; i++) {
      b[i] = agpu_test_randf(&seed, -100.0f, 100.0f);
      c[i] = agpu_test_randf(&seed, -100.0f, 100.0f);
      volatile float product = 3.0f * c[i];
      want[i] = b[i] + product;
    }
    agpu_buffer *A = make_buffer(n, 4, NULL), *B = make_buffer(n, 4, b), *C = make_buffer(n, 4, c);
    agpu_arg args[] = {agpu_arg_buffer(A), agpu_arg_buffer(B), agpu_arg_buffer(C),
                       agpu_arg_f32(3.0f)};
    if (A && B && C && launch("triad_f", sh->dims, sh->global, sh->local, 4, args)) {
      size_t wrong = wrong_bytes(A, n, 4, want);
      if (wrong) printf("  triad_f %zu in groups of %zu: %zu wrong\n", n, sh->local[0], wrong);
      CHECK(wrong == 0);
    }
    agpu_buffer_release(A), agpu_buffer_release(B), agpu_buffer_release(C);
    free(b), free(c), free(want);
  }
}

/* Two outputs of 1 and 2 bytes per element: heads and tails of every
 * length up to the vector's alignment. */
static void narrow_elements(void) {
  static const size_t sizes[][2] = {{1000, 0}, {4095, 13}, {65, 65}, {3108, 777}, {70001, 0}};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    size_t n = sizes[k][0], global[1] = {n}, local[1] = {sizes[k][1]};
    uint32_t *x = malloc(n * 4);
    unsigned char *o = malloc(n);
    uint16_t *h = malloc(n * 2);
    uint64_t seed = 0xb17e + n;
    for (size_t i = 0; i < n; i++) {
      x[i] = (uint32_t)agpu_test_rand(&seed);
      o[i] = (unsigned char)(x[i] * 7u);
      h[i] = (uint16_t)(x[i] >> 3);
    }
    agpu_buffer *O = make_buffer(n, 1, NULL), *H = make_buffer(n, 2, NULL),
                *X = make_buffer(n, 4, x);
    agpu_arg args[] = {agpu_arg_buffer(O), agpu_arg_buffer(H), agpu_arg_buffer(X)};
    if (O && H && X && launch("narrow", 1, global, local, 3, args)) {
      size_t wrong = wrong_bytes(O, n, 1, o) + wrong_bytes(H, n, 2, h);
      if (wrong) printf("  narrow %zu in groups of %zu: %zu wrong\n", n, local[0], wrong);
      CHECK(wrong == 0);
    }
    agpu_buffer_release(O), agpu_buffer_release(H), agpu_buffer_release(X);
    free(x), free(o), free(h);
  }
}

/* Grid-stride loops run as gangs (docs/cpu-backend.md, "Gangs"): their
 * full steps stream. n not a multiple of the gang or the launch; groups of
 * 3 (no gang), 37, 100, 256 and 600 (a gang of 256, then lanes one by one). */
static void grid_stride_loops(void) {
  static const size_t cases[][3] = {{1000, 256, 4},  {1000, 100, 3}, {777, 37, 2},
                                    {70001, 600, 2}, {50, 3, 2},     {5, 100, 1}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    size_t n = cases[k][0], global[1] = {cases[k][1] * cases[k][2]}, local[1] = {cases[k][1]};
    double *b = malloc(n * 8), *c = malloc(n * 8), *want = malloc(n * 8);
    float *x = malloc(n * 4), *o = malloc(n * 4);
    uint16_t *h = malloc(n * 2);
    uint64_t seed = 0x6a9 + n;
    for (size_t i = 0; i < n; i++) {
      b[i] = agpu_test_randf(&seed, -100.0f, 100.0f) / 3.0;
      c[i] = agpu_test_randf(&seed, -100.0f, 100.0f) / 7.0;
      volatile double product = 0.4 * c[i];
      want[i] = b[i] + product;
      x[i] = agpu_test_randf(&seed, 0.0f, 60000.0f);
      o[i] = x[i] * 2.0f;
      h[i] = (uint16_t)(int)x[i];
    }
    agpu_buffer *A = make_buffer(n, 8, NULL), *B = make_buffer(n, 8, b), *C = make_buffer(n, 8, c),
                *O = make_buffer(n, 4, NULL), *H = make_buffer(n, 2, NULL),
                *X = make_buffer(n, 4, x);
    agpu_arg args[] = {agpu_arg_buffer(A), agpu_arg_buffer(B), agpu_arg_buffer(C),
                       agpu_arg_f64(0.4), agpu_arg_u32((uint32_t)n)};
    agpu_arg args2[] = {agpu_arg_buffer(O), agpu_arg_buffer(H), agpu_arg_buffer(X),
                        agpu_arg_u64(n)};
    if (A && B && C && launch("gs_triad", 1, global, local, 5, args)) {
      size_t wrong = wrong_bytes(A, n, 8, want);
      if (wrong) printf("  gs_triad %zu in %zu x %zu: %zu wrong\n", n, global[0], local[0], wrong);
      CHECK(wrong == 0);
    }
    if (O && H && X && launch("gs_two", 1, global, local, 4, args2)) {
      size_t wrong = wrong_bytes(O, n, 4, o) + wrong_bytes(H, n, 2, h);
      if (wrong) printf("  gs_two %zu in %zu x %zu: %zu wrong\n", n, global[0], local[0], wrong);
      CHECK(wrong == 0);
    }
    agpu_buffer_release(A), agpu_buffer_release(B), agpu_buffer_release(C);
    agpu_buffer_release(O), agpu_buffer_release(H), agpu_buffer_release(X);
    free(b), free(c), free(want), free(x), free(o), free(h);
  }
}

/* Stores under `if (gid < n)`: the groups whose ids are all below n
 * stream (emit_c_regions.c's copy of the region with the comparison
 * constant), the last one stores as before. The launch rounded up to the
 * group size; n odd. */
static void guarded_stores(void) {
  static const size_t cases[][2] = {{1001, 64}, {777, 37}, {70001, 600}, {5, 256}, {4096, 256}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    size_t n = cases[k][0], local[1] = {cases[k][1]};
    size_t global[1] = {(n + local[0] - 1) / local[0] * local[0]};
    double *b = malloc(n * 8), *c = malloc(n * 8), *want = malloc(n * 8);
    float *x = malloc(n * 4), *o = malloc(n * 4);
    int32_t *h = malloc(n * 4);
    uint64_t seed = 0x9a4d + n;
    for (size_t i = 0; i < n; i++) {
      b[i] = agpu_test_randf(&seed, -100.0f, 100.0f) / 3.0;
      c[i] = agpu_test_randf(&seed, -100.0f, 100.0f) / 7.0;
      volatile double product = 0.4 * c[i];
      want[i] = b[i] + product;
      x[i] = agpu_test_randf(&seed, -1000.0f, 1000.0f);
      o[i] = x[i] + 1.0f;
      h[i] = (int32_t)x[i];
    }
    agpu_buffer *A = make_buffer(n, 8, NULL), *B = make_buffer(n, 8, b), *C = make_buffer(n, 8, c),
                *O = make_buffer(n, 4, NULL), *H = make_buffer(n, 4, NULL),
                *X = make_buffer(n, 4, x);
    agpu_arg args[] = {agpu_arg_buffer(A), agpu_arg_buffer(B), agpu_arg_buffer(C),
                       agpu_arg_f64(0.4), agpu_arg_u32((uint32_t)n)};
    agpu_arg args2[] = {agpu_arg_buffer(O), agpu_arg_buffer(H), agpu_arg_buffer(X),
                        agpu_arg_i64((int64_t)n)};
    if (A && B && C && launch("guarded", 1, global, local, 5, args)) {
      size_t wrong = wrong_bytes(A, n, 8, want);
      if (wrong) printf("  guarded %zu in groups of %zu: %zu wrong\n", n, local[0], wrong);
      CHECK(wrong == 0);
    }
    if (O && H && X && launch("guarded_two", 1, global, local, 4, args2)) {
      size_t wrong = wrong_bytes(O, n, 4, o) + wrong_bytes(H, n, 4, h);
      if (wrong) printf("  guarded_two %zu in groups of %zu: %zu wrong\n", n, local[0], wrong);
      CHECK(wrong == 0);
    }
    agpu_buffer_release(A), agpu_buffer_release(B), agpu_buffer_release(C);
    agpu_buffer_release(O), agpu_buffer_release(H), agpu_buffer_release(X);
    free(b), free(c), free(want), free(x), free(o), free(h);
  }
}

/* A kernel that reads the buffer it writes keeps its ordinary stores. */
static void saxpy_in_place(void) {
  size_t n = 1003, global[1] = {n}, local[1] = {0};
  double *x = malloc(n * 8), *y = malloc(n * 8), *want = malloc(n * 8);
  uint64_t seed = 0x5a;
  for (size_t i = 0; i < n; i++) {
    x[i] = agpu_test_randf(&seed, -10.0f, 10.0f);
    y[i] = agpu_test_randf(&seed, -10.0f, 10.0f);
    volatile double product = 1.5 * x[i];
    want[i] = product + y[i];
  }
  agpu_buffer *X = make_buffer(n, 8, x), *Y = make_buffer(n, 8, y);
  agpu_arg args[] = {agpu_arg_buffer(X), agpu_arg_buffer(Y), agpu_arg_f64(1.5)};
  if (X && Y && launch("saxpy", 1, global, local, 3, args)) CHECK(wrong_bytes(Y, n, 8, want) == 0);
  agpu_buffer_release(X), agpu_buffer_release(Y);
  free(x), free(y), free(want);
}

int main(void) {
  setenv("ANYGPU_CPU_STREAM_BYTES", "0", 0); /* every launch streams, unless told */
  printf("ANYGPU_CPU_STREAM_BYTES=%s\n", getenv("ANYGPU_CPU_STREAM_BYTES"));
  S.device = agpu_test_device("cpu:0");
  if (!S.device) {
    printf("skipped: no cpu:0 device: %s\n", agpu_test_backend_reason("cpu"));
    return 77;
  }
  agpu_program_desc desc = {.source = source, .source_name = "stream.cl"};
  if (agpu_program_build(S.device, &desc, &S.program) != AGPU_SUCCESS ||
      agpu_queue_create(S.device, &S.queue) != AGPU_SUCCESS) {
    printf("setup failed: %s\n", agpu_last_error());
    return 1;
  }
  RUN(triad_doubles);
  RUN(triad_floats);
  RUN(narrow_elements);
  RUN(grid_stride_loops);
  RUN(guarded_stores);
  RUN(saxpy_in_place);
  agpu_queue_release(S.queue);
  agpu_program_release(S.program);
  return agpu_test_finish();
}
