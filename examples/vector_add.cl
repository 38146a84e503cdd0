// SPDX-License-Identifier: Apache-2.0
// c[i] = a[i] + b[i]: the kernel of the README's `anygpu run` example.
__kernel void vector_add(__global const float *a, __global const float *b, __global float *c,
                         uint n) {
  uint i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
