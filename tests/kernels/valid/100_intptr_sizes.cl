// 64-bit size arithmetic with intptr_t and uintptr_t (issue 33): they are
// ptrdiff_t and size_t, 64 bits on every target, so values past 2^32,
// wrap-around below 0 and sizeof agree with OpenCL C on every device.
// @kernel sizes
// @global 77
// @local 16
// @arg buffer ulong 77 random 0 4000000000
// @arg buffer ulong 77 output
// @arg buffer long 77 output
// @arg value ulong 8589934597
__kernel void sizes(__global const ulong *in, __global ulong *out, __global long *diff,
                    ulong big) {
  size_t g = get_global_id(0);
  if (g >= 77) return;
  uintptr_t u = (uintptr_t)in[g] * 0x100000000UL + (uintptr_t)big;
  intptr_t d = (intptr_t)g - (intptr_t)40 - (intptr_t)(big >> 31);
  uintptr_t below = g - 1; /* 2^64 - 1 for work-item 0 */
  out[g] = u ^ below ^ (uintptr_t)(g >= 4294967296UL) ^ ((uintptr_t)sizeof(uintptr_t) << 60);
  diff[g] = d * (intptr_t)sizeof(intptr_t) + (intptr_t)(u >> 40);
}
