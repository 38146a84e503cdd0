// SPDX-License-Identifier: Apache-2.0
/* Barriers inside an `if` whose condition differs between the work-items of
 * a group (issue 31, item 6): the tiled matmul that Rodinia and the vendor
 * SDKs write, `if (row < n && col < n) { ... barrier ... }`, whose last
 * groups are partial. OpenCL leaves it undefined; cpu:0 masks the
 * work-items that do not take a branch out of its regions
 * (kernels/emit_c_regions.c, kc_group_masked_if). PoCL cannot be the
 * reference here (it corrupts its heap on some of these shapes), so the
 * reference is the host's, in double: random inputs, a size that is not a
 * multiple of the tile, every output element poisoned and checked, nested
 * divergent ifs with an else and a return. In a partial group the
 * work-items outside the matrix load nothing into the tiles (they were
 * zeroed before the if), which the reference reproduces: that is what
 * masking them out means. */
#include <math.h>
#include <stdlib.h>

#include "agpu_test.h"

static const char source[] =
    "#define T 16\n"
    "__kernel void tiled(__global const float *a, __global const float *b, __global float *c,\n"
    "                    __global int *path, int n) {\n"
    "  __local float as[T][T], bs[T][T];\n"
    "  __local int counts[T];\n"
    "  int row = get_global_id(1), col = get_global_id(0);\n"
    "  int lr = get_local_id(1), lc = get_local_id(0);\n"
    "  if (lr == 0) counts[lc] = 0;\n"
    "  as[lr][lc] = 0.0f;\n"
    "  bs[lr][lc] = 0.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (row < n && col < n) {\n"
    "    float acc = 0.0f;\n"
    "    for (int t = 0; t < n; t += T) {\n"
    "      as[lr][lc] = t + lc < n ? a[row * n + t + lc] : 0.0f;\n"
    "      bs[lr][lc] = t + lr < n ? b[(t + lr) * n + col] : 0.0f;\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      for (int k = 0; k < T; k++) acc += as[lr][k] * bs[k][lc];\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (row % 3 == 0) {\n"
    "      atomic_inc(&counts[lc]);\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      path[row * n + col] = 1000 + counts[lc];\n"
    "      c[row * n + col] = acc;\n"
    "      return;\n"
    "    } else {\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      path[row * n + col] = 2000 + counts[lc];\n"
    "    }\n"
    "    c[row * n + col] = -acc;\n"
    "  }\n"
    "}\n";

enum { N = 40, LAUNCH = 48, TILE = 16 };

/* How many rows r of the group's tile (rows g*16 .. g*16+15, below N) have
 * r % 3 == 0: the count each such work-item sees after the barrier. */
static int rows_of_three(int group_row) {
  int count = 0;
  for (int r = group_row * TILE; r < group_row * TILE + TILE && r < N; r++) count += r % 3 == 0;
  return count;
}

static void masked_regions_match_the_reference(void) {
  REQUIRE_DEVICE(device, "cpu");
  static float a[N * N], b[N * N], c[N * N];
  static int path[N * N];
  uint64_t seed = 31;
  for (int i = 0; i < N * N; i++) {
    a[i] = agpu_test_randf(&seed, -1.0f, 1.0f);
    b[i] = agpu_test_randf(&seed, -1.0f, 1.0f);
    c[i] = NAN;
    path[i] = -7;
  }
  agpu_program_desc desc = {.source = source, .source_name = "divergent.cl"};
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) return;
  CHECK_OK(agpu_kernel_create(program, "tiled", &kernel));
  agpu_buffer *ba = NULL, *bb = NULL, *bc = NULL, *bp = NULL;
  CHECK_OK(agpu_buffer_create(device, sizeof a, 0, &ba));
  CHECK_OK(agpu_buffer_create(device, sizeof b, 0, &bb));
  CHECK_OK(agpu_buffer_create(device, sizeof c, 0, &bc));
  CHECK_OK(agpu_buffer_create(device, sizeof path, 0, &bp));
  CHECK_OK(agpu_buffer_write(NULL, ba, 0, sizeof a, a));
  CHECK_OK(agpu_buffer_write(NULL, bb, 0, sizeof b, b));
  CHECK_OK(agpu_buffer_write(NULL, bc, 0, sizeof c, c));
  CHECK_OK(agpu_buffer_write(NULL, bp, 0, sizeof path, path));
  agpu_arg args[] = {agpu_arg_buffer(ba), agpu_arg_buffer(bb), agpu_arg_buffer(bc),
                     agpu_arg_buffer(bp), agpu_arg_i32(N)};
  size_t global[2] = {LAUNCH, LAUNCH}, local[2] = {TILE, TILE};
  CHECK_OK(agpu_launch(NULL, kernel, 2, global, local, 5, args));
  CHECK_OK(agpu_buffer_read(NULL, bc, 0, sizeof c, c));
  CHECK_OK(agpu_buffer_read(NULL, bp, 0, sizeof path, path));
  int wrong = 0, wrong_path = 0;
  for (int r = 0; r < N; r++)
    for (int col = 0; col < N; col++) {
      /* the tiles hold what the group's work-items inside the matrix loaded */
      int group_row = r / TILE * TILE, group_col = col / TILE * TILE;
      double acc = 0;
      for (int t = 0; t < N; t += TILE)
        for (int k = 0; k < TILE; k++) {
          bool a_loaded = group_col + k < N && t + k < N;
          bool b_loaded = group_row + k < N && t + k < N;
          if (a_loaded && b_loaded) acc += (double)a[r * N + t + k] * b[(t + k) * N + col];
        }
      double want = r % 3 == 0 ? acc : -acc;
      if (!(fabs(c[r * N + col] - want) <= 1e-4 * (1 + fabs(want)))) {
        if (wrong < 5) printf("  c[%d][%d] = %g, want %g\n", r, col, c[r * N + col], want);
        wrong++;
      }
      int expected = r % 3 == 0 ? 1000 + rows_of_three(r / TILE) : 2000 + rows_of_three(r / TILE);
      if (path[r * N + col] != expected) wrong_path++;
    }
  if (wrong || wrong_path)
    printf("  %d products and %d paths wrong of %d\n", wrong, wrong_path, N * N);
  CHECK(wrong == 0);
  CHECK(wrong_path == 0);
  agpu_buffer_release(ba);
  agpu_buffer_release(bb);
  agpu_buffer_release(bc);
  agpu_buffer_release(bp);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

/* A loop with barriers whose trip count differs between the work-items
 * (each sums a segment of its own length through a __local stage, reading
 * its neighbour's slot too): the group runs it while any work-item is in
 * it; a work-item that is done leaves its last value in its slot. */
static const char segments[] =
    "__kernel void seg(__global const int *len, __global const float *x, __global float *out,\n"
    "                  __local float *stage, int n) {\n"
    "  int l = get_local_id(0), g = get_global_id(0), ls = get_local_size(0);\n"
    "  stage[l] = 0.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  float acc = 0.0f;\n"
    "  int count = g < n ? len[g] : 0;\n"
    "  for (int k = 0; k < count; k++) {\n"
    "    stage[l] = x[g * 8 + k];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    acc += stage[l] * 2.0f + stage[(l + 1) % ls];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (g < n) out[g] = acc;\n"
    "}\n";

static void masked_loops_match_the_reference(void) {
  REQUIRE_DEVICE(device, "cpu");
  enum { M = 90, GROUP = 16, LAUNCHED = 96 };
  static int len[M];
  static float x[M * 8], out[M];
  uint64_t seed = 5;
  for (int i = 0; i < M; i++) {
    len[i] = (int)(agpu_test_rand(&seed) % 9); /* 0 to 8 */
    out[i] = NAN;
  }
  for (int i = 0; i < M * 8; i++) x[i] = agpu_test_randf(&seed, -2.0f, 2.0f);
  agpu_program_desc desc = {.source = segments, .source_name = "segments.cl"};
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) return;
  CHECK_OK(agpu_kernel_create(program, "seg", &kernel));
  agpu_buffer *bl = NULL, *bx = NULL, *bo = NULL;
  CHECK_OK(agpu_buffer_create(device, sizeof len, 0, &bl));
  CHECK_OK(agpu_buffer_create(device, sizeof x, 0, &bx));
  CHECK_OK(agpu_buffer_create(device, sizeof out, 0, &bo));
  CHECK_OK(agpu_buffer_write(NULL, bl, 0, sizeof len, len));
  CHECK_OK(agpu_buffer_write(NULL, bx, 0, sizeof x, x));
  CHECK_OK(agpu_buffer_write(NULL, bo, 0, sizeof out, out));
  agpu_arg args[] = {agpu_arg_buffer(bl), agpu_arg_buffer(bx), agpu_arg_buffer(bo),
                     agpu_arg_local(GROUP * sizeof(float)), agpu_arg_i32(M)};
  size_t global = LAUNCHED, local = GROUP;
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 5, args));
  CHECK_OK(agpu_buffer_read(NULL, bo, 0, sizeof out, out));
  int wrong = 0;
  for (int g = 0; g < M; g++) {
    int l = g % GROUP, neighbour = g - l + (l + 1) % GROUP;
    int neighbour_len = neighbour < M ? len[neighbour] : 0;
    double acc = 0;
    for (int k = 0; k < len[g]; k++) {
      /* the neighbour's slot: its value of this iteration, or its last one */
      int nk = k < neighbour_len ? k : neighbour_len - 1;
      double other = nk >= 0 ? x[neighbour * 8 + nk] : 0.0;
      acc += (double)x[g * 8 + k] * 2.0 + other;
    }
    if (!(fabs(out[g] - acc) <= 1e-4 * (1 + fabs(acc)))) {
      if (wrong < 5) printf("  out[%d] = %g, want %g\n", g, out[g], acc);
      wrong++;
    }
  }
  CHECK(wrong == 0);
  agpu_buffer_release(bl);
  agpu_buffer_release(bx);
  agpu_buffer_release(bo);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

int main(void) {
  RUN(masked_regions_match_the_reference);
  RUN(masked_loops_match_the_reference);
  return agpu_test_finish();
}
