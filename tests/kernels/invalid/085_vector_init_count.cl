// A vector's brace initialiser must give every component, as in a literal.
// @error 4:14 too few elements in the initializer of a 'float4': it needs 4, 3 given
__kernel void k(__global float4 *out) {
  float4 f = {1.0f, 2.0f, 3.0f};
  out[0] = f;
}
