// Compound literals (issue 31): `(dcomplex){re, im}` of a struct, as the NAS
// Parallel Benchmarks' FT writes complex arithmetic, in an expression
// statement, a declaration, a return and a call's argument; one of a nested
// struct with an array member, one of an array, and a vector's braces.
// @kernel cmul
// @global 200
// @local 50
// @arg buffer float2 200 random -10 10
// @arg buffer float2 200 random -10 10
// @arg buffer float4 200 output
// @arg value uint 200
// @tolerance ulp 4 abs 1e-4
typedef struct {
  float real, imag;
} fcomplex;
typedef struct {
  fcomplex z;
  int w[3];
} tagged;

fcomplex mul(fcomplex a, fcomplex b) {
  return (fcomplex){a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real};
}
float norm1(fcomplex a) { return fabs(a.real) + fabs(a.imag); }

__kernel void cmul(__global const float2 *x, __global const float2 *y, __global float4 *out,
                   uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  fcomplex a = (fcomplex){x[i].x, x[i].y}, c;
  c = mul(a, (fcomplex){y[i].x, y[i].y});
  tagged t = (tagged){{c.imag, c.real}, {(int)i, 2, 3}};
  t = (tagged){(fcomplex){t.z.imag, -t.z.real}, {t.w[2], t.w[1], t.w[0]}};
  int k = ((int[3]){4, 5, (int)i})[i % 3];
  float4 v = (float4){c.real, c.imag, norm1((fcomplex){c.imag, 1.0f}), 0.0f};
  out[i] = v + (float4)(t.z.real, t.z.imag, (float)(t.w[0] + k), 0.0f);
}
