// A compound literal in an operand of ?: would be evaluated unconditionally
// once hoisted: refused.
// @error 8:25 a compound literal in an operand of &&, || or ?: is not supported
typedef struct { float re, im; } cx;
__kernel void k(__global const float *in, __global float *out) {
  int i = get_global_id(0);
  cx w = {0.0f, 1.0f};
  cx z = in[i] > 0.0f ? (cx){in[i], 0.0f} : w;
  out[i] = z.re + z.im;
}
