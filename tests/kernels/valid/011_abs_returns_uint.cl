// abs() of a signed integer returns the unsigned type: abs(INT_MIN) is
// 2147483648u, and comparing abs(x) with a negative int compares as uint.
// abs_diff also returns unsigned.
// @kernel abs_uint
// @global 450
// @local 64
// @arg buffer int 450 random -2147483648 2147483647
// @arg buffer int 450 random -100 100
// @arg buffer uint 450 output
// @arg buffer int 450 output
// @arg buffer uint 450 output
// @arg buffer uchar 450 output
// @arg value uint 450
__kernel void abs_uint(__global const int *a, __global const int *b, __global uint *magnitude,
                       __global int *compared, __global uint *difference,
                       __global uchar *char_abs, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int x = i == 0 ? INT_MIN : a[i];
  magnitude[i] = abs(x);
  compared[i] = (abs(b[i]) > b[i] - 200) + (abs(b[i]) > -1); /* both compare as uint */
  difference[i] = abs_diff(x, b[i]);
  char c = (char)b[i];
  char_abs[i] = abs(c) + (uchar)(sizeof(abs(c)) == 1 ? 1 : 0);
}
