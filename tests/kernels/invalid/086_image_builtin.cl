// Image builtins are outside the portable subset: named at the call.
// @error 4:12 images are not in the portable subset: 'read_imagef' is not supported
__kernel void k(__global float4 *out) {
  out[0] = read_imagef(0, 0, (int2)(0, 0));
}
