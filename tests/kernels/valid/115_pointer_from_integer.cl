// A pointer initialised from an integer and assigned over before use
// (Parboil's mri-gridding: `p = (__global uint *)get_global_id(0);` "due to
// a compiler bug", then `p = binCount_g + binIdx;`), and one set to 0: the
// front end warns, every target keeps the pointer; Vulkan gives it its
// array at the assignment.
// @kernel bins
// @global 700
// @local 64
// @arg buffer uint 700 random 0 63
// @arg buffer uint 64 inout fill 0
// @arg buffer uint 700 output
// @arg value uint 700
__kernel void bins(__global const uint *keys, __global uint *counts, __global uint *seen,
                   uint n) {
  __global uint *p = (__global uint *)get_global_id(0);
  __global uint *q = 0;
  uint i = get_global_id(0);
  if (i < n) {
    p = counts + keys[i];
    q = p;
    atomic_inc(q);
    seen[i] = keys[i] * 3u + 1u;
  }
}
