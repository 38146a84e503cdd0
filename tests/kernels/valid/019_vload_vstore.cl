// vloadN and vstoreN for N = 2, 4, 8 and 16 from scalar pointers at element
// offsets, and from an unaligned base pointer (p + 1).
// @kernel vload_vstore
// @global 100
// @local 16
// @arg buffer int 1700 random -1000 1000
// @arg buffer int 1700 output 1600
// @arg buffer int 300 output 200
// @arg value uint 100
__kernel void vload_vstore(__global const int *in, __global int *out, __global int *pairs,
                           uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int16 sixteen = vload16(i, in);
  int8 eight = vload8(2 * i, in + 1) + vload8(2 * i + 1, in + 1);
  int4 four = vload4(i, in + 3);
  int2 two = vload2(i, in);
  vstore16(sixteen.sFEDCBA9876543210 + (int16)(eight, eight), i, out);
  vstore2(two * four.xy, i, pairs);
}
