// Samplers are outside the portable subset: reported at the type name.
// @error 3:17 samplers are not in the portable subset: sampler types are not supported
__kernel void k(sampler_t sampler, __global int *out) { out[0] = 0; }
