// SPDX-License-Identifier: Apache-2.0
// Conformance suite: integer vector kernels, checked bit for bit.

// Signed addition; the host keeps the inputs where the sum cannot overflow.
__kernel void add_int(__global const int *x, __global const int *y, __global int *z, uint n) {
  size_t i = get_global_id(0);
  if (i < n) z[i] = x[i] + y[i];
}

// Bit operations: and, or, xor, not, and shifts whose counts OpenCL C masks
// to the width (a count of 37 shifts by 5).
__kernel void bitops(__global const uint *x, __global const uint *y, __global uint *z, uint n) {
  size_t i = get_global_id(0);
  if (i >= n) return;
  uint a = x[i], b = y[i];
  z[i] = ((a & b) ^ (a | ~b)) + (a << (b & 63u)) + (b >> (a & 63u)) - (~a ^ (b >> 3));
}
