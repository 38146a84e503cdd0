// SPDX-License-Identifier: Apache-2.0
/* A program with kernels the CUDA and HIP targets cannot express beside
 * good ones (issue 18's per-kernel isolation), shared by
 * test_cuda_compile.c and test_hip_compile.c. */
#ifndef AGPU_GPU_REFUSAL_SOURCES_H
#define AGPU_GPU_REFUSAL_SOURCES_H

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

#endif /* AGPU_GPU_REFUSAL_SOURCES_H */
