// SPDX-License-Identifier: Apache-2.0
/* A program with kernels the CUDA and HIP targets cannot express beside
 * good ones (issue 18's per-kernel isolation), shared by
 * test_cuda_compile.c and test_hip_compile.c. */
#ifndef AGPU_GPU_REFUSAL_SOURCES_H
#define AGPU_GPU_REFUSAL_SOURCES_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* 'class' is a C++ keyword (refused on both), 'cbrtf' a CUDA math function
 * (refused on CUDA only), and a shift through a volatile vector pointer is
 * a compound assignment the emitter cannot express (refused on both). */
static const char gpu_refusal_mixed[] =
    "__kernel void twice(__global const float *in, __global float *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = 2.0f * in[i] + 0.5f;\n"
    "}\n"
    "__kernel void class(__global float *out) { out[get_global_id(0)] = 1.0f; }\n"
    "__kernel void vshift(volatile __global int4 *p) {\n"
    "  p[get_global_id(0)] <<= (int4)(1);\n"
    "}\n"
    "__kernel void cbrtf(__global float *out) { out[get_global_id(0)] = 3.0f; }\n"
    "__kernel void plus(__global int *x, int k) { x[get_global_id(0)] += k; }\n";

/* Every kernel refused: the program fails as a whole. */
static const char gpu_refusal_none_left[] =
    "__kernel void class(__global float *out) { out[get_global_id(0)] = 1.0f; }\n";

/* Helpers and shared memory (issue 18): 'inner' shifts through a volatile
 * vector pointer, which neither target can express, and 'uses_bad' reaches
 * it through 'outer'; 'huge' has 68000 bytes of __local arrays (past HIP's
 * 64 KiB), 'mid' 51200 (past CUDA's 48 KiB of static shared memory, within
 * HIP's); 'good' and its helper 'fine' translate. */
static const char gpu_refusal_helpers[] =
    "int fine(int x) { return 3 * x + 1; }\n"
    "void inner(volatile __global int4 *p) { p[0] <<= (int4)(1); }\n"
    "void outer(volatile __global int4 *p) { inner(p); }\n"
    "__kernel void good(__global const int *in, __global int *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = fine(in[i]);\n"
    "}\n"
    "__kernel void uses_bad(volatile __global int4 *p) { outer(p); }\n"
    "__kernel void huge(__global float *out) {\n"
    "  __local float scratch[17000];\n"
    "  scratch[get_local_id(0)] = (float)get_global_id(0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = scratch[0];\n"
    "}\n"
    "__kernel void mid(__global float *out) {\n"
    "  __local float scratch[12800];\n"
    "  scratch[get_local_id(0)] = (float)get_global_id(0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = scratch[get_local_id(0) ^ 1u];\n"
    "}\n";

/* What agpu_translate says of gpu_refusal_helpers (`hip`: for HIP, else
 * for CUDA): each line of `notes` in lines[], `count` of them. */
static int gpu_refusal_helper_notes(bool hip, char lines[][256]) {
  const char *target = hip ? "HIP" : "CUDA";
  int count = 0;
  snprintf(lines[count++], 256,
           "helpers.cl:2:46: error: the %s target does not support this compound assignment "
           "through a volatile vector pointer",
           target);
  snprintf(lines[count++], 256,
           "helpers.cl:8:15: error: kernel 'uses_bad' calls 'outer', which calls 'inner', which "
           "the %s target cannot translate: the kernel is left out",
           target);
  snprintf(lines[count++], 256,
           "helpers.cl:9:15: error: kernel 'huge' needs 68000 bytes of shared memory for its "
           "__local arrays; the %s target allows %d in one kernel",
           target, hip ? 65536 : 49152);
  if (!hip)
    snprintf(lines[count++], 256,
             "helpers.cl:15:15: error: kernel 'mid' needs 51200 bytes of shared memory for its "
             "__local arrays; the CUDA target allows 49152 in one kernel");
  snprintf(lines[count++], 256, "warning: kernel 'uses_bad' is left out of the %s output",
           hip ? "hip" : "cuda");
  snprintf(lines[count++], 256, "warning: kernel 'huge' is left out of the %s output",
           hip ? "hip" : "cuda");
  return count;
}

/* Whether agpu_translate's `output` and `notes` for gpu_refusal_helpers
 * are right: the good kernel and its helper in, the refused kernels and the
 * helpers they reach out ('mid' is in for HIP), each refusal explained.
 * Prints what is wrong. */
static bool gpu_refusal_helpers_translated(bool hip, const char *output, const char *notes) {
  char lines[8][256];
  int count = gpu_refusal_helper_notes(hip, lines);
  bool ok = true;
  for (int i = 0; i < count; i++)
    if (!strstr(notes, lines[i])) {
      printf("  missing: %s\n", lines[i]);
      ok = false;
    }
  bool mid_refused = strstr(notes, "error: kernel 'mid'") != NULL;
  static const char *const in[] = {"__global__ void good(", "__device__ int fine(int x"};
  static const char *const out[] = {"inner(", "outer(", "void uses_bad(", "void huge("};
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) ok = ok && strstr(output, in[i]);
  for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) ok = ok && !strstr(output, out[i]);
  ok = ok && (strstr(output, "__global__ void mid(") != NULL) == hip && mid_refused == !hip;
  if (!ok) printf("  notes:\n%s\n", notes);
  return ok;
}

#endif /* AGPU_GPU_REFUSAL_SOURCES_H */
