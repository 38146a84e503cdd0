// Pointers to arrays (issue 31), as NAS Parallel Benchmarks ports write a 3-D
// grid: `__global double (*u)[N][M] = (__global double (*)[N][M]) buf;`
// indexed u[k][j][i]; a 1-D one as a parameter, and a row taken as a plain
// pointer (u[k][j] decays to its element).
// @kernel stencil
// @global 6x5x4
// @local 2x5x2
// @arg buffer float 4*5*6 random -100 100
// @arg buffer float 4*5*6 output
// @arg buffer float 4*6 random -10 10
// @arg value int 4
// @tolerance ulp 4 abs 1e-4
#define NX 6
#define NY 5
__kernel void stencil(__global const float *in, __global float *out, __global float (*w)[NX],
                      int nz) {
  int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
  if (i >= NX || j >= NY || k >= nz) return;
  __global const float(*u)[NY][NX] = (__global const float(*)[NY][NX])in;
  __global float (*v)[NY][NX] = (__global float (*)[NY][NX])out;
  __global const float *row = u[k][j];
  float s = u[k][j][i] * 2.0f + row[(i + 1) % NX];
  if (j > 0) s += u[k][j - 1][i];
  if (k + 1 < nz) s -= u[k + 1][j][NX - 1 - i];
  s += w[k][i] * (float)(j + 1);
  v[k][j][i] = s;
}
