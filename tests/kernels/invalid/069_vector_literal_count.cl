// A float4 literal needs 1 or 4 components (or vectors adding up to 4):
// reported at the literal's opening parenthesis.
// @error 5:12 wrong number of components in vector literal
__kernel void k(__global float4 *out) {
  out[0] = (float4)(1.0f, 2.0f, 3.0f);
}
