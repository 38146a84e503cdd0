// Images are outside the portable subset: reported at the type name.
// @error 3:29 images are not in the portable subset: image types are not supported
__kernel void k(__read_only image2d_t picture, __global int *out) { out[0] = 0; }
