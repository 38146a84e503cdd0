// Sampler constants are outside the portable subset: named where used.
// @error 4:15 samplers are not in the portable subset: 'CLK_ADDRESS_CLAMP' is not supported
__kernel void k(__global int *out) {
  int flags = CLK_ADDRESS_CLAMP | 1;
  out[0] = flags;
}
