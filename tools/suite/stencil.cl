// SPDX-License-Identifier: Apache-2.0
// Conformance suite: one Jacobi step of a 2D 5-point stencil on a
// width x height grid; the boundary is copied unchanged.
__kernel void stencil5(__global const float *u, __global float *v, uint width, uint height,
                       float center, float neighbour) {
  uint x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  uint i = y * width + x;
  if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
    v[i] = u[i];
    return;
  }
  v[i] = center * u[i] + neighbour * (u[i - width] + u[i + width] + u[i - 1] + u[i + 1]);
}
