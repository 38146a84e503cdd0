// % takes integers; fmod is the float remainder.
// @error 5:14 invalid operands to binary '%'
__kernel void k(__global float *out) {
  float x = out[0], y = out[1];
  out[2] = x % y;
}
