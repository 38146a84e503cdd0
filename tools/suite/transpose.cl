// SPDX-License-Identifier: Apache-2.0
// Conformance suite: out (cols x rows) = transpose of in (rows x cols),
// through a TILE x (TILE + 1) local tile (the padding column keeps the
// column reads free of bank conflicts on GPUs). TILE comes from -D and is
// the work-group size in both dimensions.
__kernel void transpose(__global const float *in, __global float *out, uint rows, uint cols) {
  __local float tile[TILE][TILE + 1];
  uint tx = get_local_id(0), ty = get_local_id(1);
  uint x = get_group_id(0) * TILE + tx, y = get_group_id(1) * TILE + ty;
  if (x < cols && y < rows) tile[ty][tx] = in[y * cols + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  // The block lands at the mirrored place; consecutive work-items write
  // consecutive addresses, reading the tile down a column.
  uint out_x = get_group_id(1) * TILE + tx, out_y = get_group_id(0) * TILE + ty;
  if (out_x < rows && out_y < cols) out[out_y * rows + out_x] = tile[tx][ty];
}
