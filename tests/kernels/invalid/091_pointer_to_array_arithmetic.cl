// A pointer to an array is only subscripted: arithmetic on it stays out.
// @error 6:42 a pointer to an array ('__global float (*)[4]') can only be subscripted here
__kernel void k(__global float *o) {
  __global float (*u)[4] = (__global float (*)[4])o;
  u[0][1] = 2.0f;
  __global float *p = (__global float *)(u + 1);
  p[0] = 1.0f;
}
