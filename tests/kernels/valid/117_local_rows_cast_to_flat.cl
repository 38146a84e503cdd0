// A __local array of arrays cleared, written and read only through casts to
// a flat pointer, `((__local uint *)sub_histo)[i]` (Parboil's histo): CUDA
// and HIP decay the array as C++ does; Vulkan declares it flat.
// @kernel rows
// @global 500
// @local 64
// @arg buffer uint 500 random 0 1000
// @arg buffer uint 500 output
// @arg value uint 500
#define KB 4
__kernel void rows(__global const uint *in, __global uint *out, uint n) {
  __local uint sub[KB][64];
  uint l = get_local_id(0), i = get_global_id(0);
  for (uint k = l; k < KB * 64; k += get_local_size(0)) ((__local uint *)sub)[k] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  ((__local uint *)sub)[(l % KB) * 64 + l] = i < n ? in[i] : 7u;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint sum = 0;
  for (uint k = 0; k < KB; k++) sum += ((__local uint *)sub)[k * 64 + (l + 1) % 64];
  if (i < n) out[i] = sum * 3u + ((__local uint *)sub)[((l + 1) % KB) * 64 + (l + 1) % 64];
}
