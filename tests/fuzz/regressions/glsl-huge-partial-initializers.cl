// The GLSL emitter wrote every element of a partially initialised array
// (`{1}` of 2^24 ints: a 134 MB array constructor) and timed out; private
// arrays are now zero-filled by a loop, __constant data over 64 KiB is
// refused for GLSL, and so are array constructors over 65536 elements.
__constant int table[0x1000000] = {1, 2};
__constant float4 wide[1 << 20] = {(float4)(1.0f)};
typedef struct { int a[1 << 22]; } holder;
__kernel void huge(__global int *out) {
  int a[0x1000000] = {1};
  float4 v[1 << 22] = {(float4)(0.0f), (float4)(2.0f)};
  holder h = {{3}};
  out[0] = a[out[1]] + table[out[2]] + (int)v[out[3]].x + (int)wide[out[4]].y + h.a[out[6]];
}
