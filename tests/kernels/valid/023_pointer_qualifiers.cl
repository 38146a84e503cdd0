// const, restrict and volatile on global pointer parameters, pointer
// arithmetic, and private pointers into global memory (one itself const).
// @kernel qualifiers
// @global 480
// @local 48
// @arg buffer int 480 random -1000 1000
// @arg buffer int 480 random -1000 1000
// @arg buffer int 480 output
// @arg buffer int 480 output
// @arg value uint 480
__kernel void qualifiers(__global const int *restrict a, const __global int *restrict b,
                         __global int *restrict out, volatile __global int *flags, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  __global const int *p = a + i;
  __global const int *const q = b + (n - 1 - i);
  int total = *p + q[0];
  if (i + 1 < n) total += p[1];
  out[i] = total;
  flags[i] = 1;
  flags[i] += *q > 0; /* volatile: read back and written again */
}
