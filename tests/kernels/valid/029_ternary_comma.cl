// The conditional operator (nested, as an lvalue's selector, mixing int and
// uint operands) and the comma operator in for loops and expressions.
// @kernel ternary_comma
// @global 640
// @local 64
// @arg buffer int 640 random -1000 1000
// @arg buffer int 640 output
// @arg buffer uint 640 output
// @arg value uint 640
__kernel void ternary_comma(__global const int *in, __global int *out, __global uint *mixed,
                            uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int x = in[i];
  int sign = x > 0 ? 1 : x < 0 ? -1 : 0;
  int a = 0, b = 0;
  *(x & 1 ? &a : &b) = x; /* the selected object is assigned */
  int sum = 0, k, j;
  for (k = 0, j = 10; k < j; k++, j--) sum += k * j;
  int c = (sum++, sum * 2);
  out[i] = sign * 100000 + a - b + c;
  mixed[i] = x < 0 ? (uint)x : 7u; /* both operands uint */
}
