// A __local array of arrays used only through pointers to its element
// from its start (`&sub[0][0]`; Parboil's histogram writes `(__local uint
// *)sub`, corpus kernel 117; test_emit_glsl has it too): cleared,
// counted into with atomics inside a helper and read back through flat
// pointers; the bytes counted are a uint buffer read through a uchar
// pointer. Vulkan declares the array flat and reads the bytes through a
// view of the buffer.
// @kernel histo
// @global 1000
// @local 64
// @arg buffer uint 1000 random 0 4294967295
// @arg buffer uint 1024 output
// @arg value int 1000
void count(__local uint *h, uint row, uchar byte) {
  atomic_inc(&h[row * 64 + (byte & 63)]);
}

__kernel void histo(__global const uint *words, __global uint *out, int n) {
  __local uint sub[4][64];
  int i = get_global_id(0), l = get_local_id(0);
  __local uint *flat = &sub[0][0];
  for (int k = l; k < 4 * 64; k += get_local_size(0)) flat[k] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) {
    __global const uchar *b = (__global const uchar *)(words + i);
    for (int k = 0; k < 4; k++) count(&sub[0][0], l & 3, b[k]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  __local const uint *read = (__local const uint *)&sub[0][0];
  out[get_group_id(0) * 64 + l] = read[l] + read[64 + l] + 2 * read[128 + l] + 3 * read[192 + l];
}
