// A 5-point stencil on a 61x47 grid with clamped borders, reading a halo
// loaded into local memory (the group's tile plus one cell on each side).
// @kernel stencil
// @global 61x47
// @local 16x8
// @arg buffer float 61*47 random 0 1
// @arg buffer float 61*47 output
// @arg value int 61
// @arg value int 47
// @tolerance ulp 4 abs 1e-6
#define TX 16
#define TY 8
float cell(__global const float *grid, int x, int y, int width, int height) {
  x = clamp(x, 0, width - 1);
  y = clamp(y, 0, height - 1);
  return grid[y * width + x];
}

__kernel void stencil(__global const float *grid, __global float *out, int width, int height) {
  __local float halo[TY + 2][TX + 2];
  int lx = get_local_id(0), ly = get_local_id(1);
  int x = get_global_id(0), y = get_global_id(1);
  int x0 = get_group_id(0) * TX - 1, y0 = get_group_id(1) * TY - 1;
  for (int j = ly; j < TY + 2; j += TY)
    for (int k = lx; k < TX + 2; k += TX) halo[j][k] = cell(grid, x0 + k, y0 + j, width, height);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (x >= width || y >= height) return;
  float centre = halo[ly + 1][lx + 1];
  float around = halo[ly][lx + 1] + halo[ly + 2][lx + 1] + halo[ly + 1][lx] + halo[ly + 1][lx + 2];
  out[y * width + x] = 0.5f * centre + 0.125f * around;
}
