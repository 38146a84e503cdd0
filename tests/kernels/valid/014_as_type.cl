// as_T reinterprets bits: floats as uints, a uint as uchar4 (little-endian
// lane order), a float4 as int4, and back.
// @kernel reinterpret
// @global 333
// @local 32
// @arg buffer float 333 random -1000 1000
// @arg buffer uint 333 random 0 0xffffffff
// @arg buffer uint 333 output
// @arg buffer float 333 output
// @arg buffer uchar4 333 output
// @arg buffer int4 333 output
// @arg value uint 333
__kernel void reinterpret(__global const float *f, __global const uint *u, __global uint *bits,
                          __global float *rebuilt, __global uchar4 *bytes, __global int4 *lanes,
                          uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  bits[i] = as_uint(f[i]) ^ 0x80000000u;             /* flip the sign bit */
  rebuilt[i] = as_float((u[i] & 0x807fffffu) | 0x3f800000u); /* exponent of 1.0 */
  bytes[i] = as_uchar4(u[i]);
  lanes[i] = as_int4((float4)(f[i], -f[i], 0.0f, -0.0f)) + as_int4(as_float4((int4)(1)));
}
