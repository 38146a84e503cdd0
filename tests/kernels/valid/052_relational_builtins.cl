// Relational builtins: scalars return 1 or 0, vectors -1 or 0 per lane;
// isequal, isgreater, isless, islessgreater, isfinite, isinf, isnan,
// isnormal, isordered, isunordered, signbit, any, all, select, bitselect, and
// the conditional operator with a vector condition.
// @kernel relational
// @global 320
// @local 32
// @arg buffer float4 320 random -2 2
// @arg buffer float4 320 random -2 2
// @arg buffer int 320 output
// @arg buffer int4 320 output
// @arg buffer float4 320 output
// @arg buffer int4 320 output
// @arg value uint 320
__kernel void relational(__global const float4 *a, __global const float4 *b,
                         __global int *scalar_bits, __global int4 *vector_masks,
                         __global float4 *selected, __global int4 *chosen, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float4 x = a[i], y = b[i];
  if (i % 7 == 0) x.y = NAN;
  if (i % 11 == 0) x.z = INFINITY;
  if (i % 13 == 0) x.w = FLT_MIN * 0.5f;
  scalar_bits[i] = isequal(x.x, y.x) | isgreater(x.x, y.x) << 1 | isless(x.x, y.x) << 2 |
                   islessgreater(x.y, y.y) << 3 | isfinite(x.z) << 4 | isinf(x.z) << 5 |
                   isnan(x.y) << 6 | isnormal(x.w) << 7 | isordered(x.y, y.y) << 8 |
                   isunordered(x.y, y.y) << 9 | signbit(x.x) << 10 |
                   any(isless(x, y)) << 11 | all(isgreater(x, (float4)(-3.0f))) << 12;
  int4 less = isless(x, y);
  vector_masks[i] = less + isnan(x) * 2 + isinf(x) * 4 + signbit(y) * 8;
  selected[i] = select(x, y, less) + bitselect(x, y, as_float4((int4)(0x80000000)));
  int4 xi = convert_int4_sat(x * 100.0f), yi = convert_int4(y * 100.0f);
  chosen[i] = xi > yi ? xi : yi + 1000; /* a vector condition picks per lane */
}
