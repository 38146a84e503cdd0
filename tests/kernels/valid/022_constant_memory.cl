// __constant memory: a kernel parameter and program-scope __constant tables
// (the only program-scope variables OpenCL C 1.2 allows), indexed by data.
// @kernel constant_lookup
// @global 900
// @local 64
// @arg buffer uint 900 random 0 255
// @arg buffer float 16 random -2 2
// @arg buffer float 900 output
// @arg buffer uint 900 output
// @arg value uint 900
// @tolerance ulp 2 abs 1e-6
__constant uint crc_nibble[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
    0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
    0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};
__constant float weights[4] = {0.5f, 0.25f, 0.125f, 0.0625f};
constant int offsets[] = {1, 3, 5, 7};

__kernel void constant_lookup(__global const uint *in, __constant float *coefficients,
                              __global float *weighted, __global uint *crc, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint byte = in[i];
  uint c = 0xffffffffu ^ byte;
  c = (c >> 4) ^ crc_nibble[c & 15];
  c = (c >> 4) ^ crc_nibble[c & 15];
  crc[i] = ~c;
  float sum = 0.0f;
  for (int k = 0; k < 4; k++) sum += weights[k] * coefficients[(byte + offsets[k]) % 16];
  weighted[i] = sum;
}
