// Byte views of __global buffers (issue 18): a uint buffer read byte by
// byte through a uchar pointer (little-endian, as every device here is),
// a uint output written through a uchar pointer (each work-item its own
// four bytes) and through a ushort pointer, and a ushort view of an int
// buffer read with an index computed from the byte offset. Vulkan needs
// 8- and 16-bit storage for these views, as for any buffer of bytes.
// @kernel bytes
// @global 301
// @local 32
// @arg buffer uint 301 random 0 4294967295
// @arg buffer int 301 random -2147483648 2147483647
// @arg buffer uint 301 output
// @arg buffer uint 301 output
// @arg buffer uint 301 output
// @arg value int 301
__kernel void bytes(__global const uint *words, __global const int *halves,
                    __global uint *sums, __global uint *reversed, __global uint *mixed, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  __global const uchar *b = (__global const uchar *)words;
  uint s = 0;
  for (int k = 0; k < 4; k++) s = s * 31u + b[4 * i + k];
  sums[i] = s;
  __global uchar *r = (__global uchar *)(reversed + i);
  for (int k = 0; k < 4; k++) r[k] = b[4 * i + 3 - k];
  __global const ushort *h = (__global const ushort *)halves;
  __global ushort *m = (__global ushort *)mixed;
  m[2 * i] = h[2 * i + 1];
  m[2 * i + 1] = (ushort)(h[2 * i] + b[4 * i]);
}
