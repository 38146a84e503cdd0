// The same rule for a vector's brace initializer.
// @error 5:15 a 'int2' part in the initializer of a 'float4': vector parts must have the element type 'float' (use convert_float2())
__kernel void k(__global float4 *out) {
  int2 a = (int2)(1, 2);
  float4 b = {a, 1.0f, 2.0f};
  out[0] = b;
}
