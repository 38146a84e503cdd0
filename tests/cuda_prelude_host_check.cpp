// SPDX-License-Identifier: Apache-2.0
/* The HIP variant of the CUDA/HIP prelude, compiled by the host C++
 * compiler with cuda_prelude_host_shim.h and run by test_emit_cuda: its
 * half conversions (every rounding mode, from float and double), half
 * arithmetic, the directed-rounding conversions HIP does without the
 * intrinsics, and a few special values, each against an exact reference
 * (the halves enumerated, __float128 arithmetic, the x87/SSE rounding
 * modes). Prints "N failures"; exits 1 on any. Argument: a seed. */
#include <algorithm>
#include <cfenv>
#include <cstdio>
#include <cstdlib>
#include <vector>

static std::vector<std::pair<double, unsigned short>> halves; /* every half but NaNs, ascending */

static double half_value(unsigned short h) {
  return (double)__builtin_bit_cast(_Float16, h);
}

static void list_halves() {
  for (unsigned h = 0; h < 65536; h++) {
    double v = half_value((unsigned short)h);
    if (v == v) halves.push_back({v, (unsigned short)h});
  }
  std::sort(halves.begin(), halves.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
}

/* x rounded to half: rm 0 nearest even, 2 towards zero, 3 up, 4 down. */
static unsigned short reference(__float128 x, int rm) {
  if (x != x) return 0x7e00;
  size_t lo = 0, hi = halves.size();
  while (lo < hi) { /* the first half > x */
    size_t m = (lo + hi) / 2;
    if ((__float128)halves[m].first <= x)
      lo = m + 1;
    else
      hi = m;
  }
  if (lo > 0 && (__float128)halves[lo - 1].first == x)
    return halves[lo - 1].second; /* exact (0 is +0 or -0) */
  bool negative = x < 0;
  auto keep_sign = [&](unsigned short h) -> unsigned short {
    return (h & 0x7fff) == 0 ? (negative ? 0x8000 : 0) : h;
  };
  unsigned short below = lo > 0 ? halves[lo - 1].second : 0xfc00;
  unsigned short above = lo < halves.size() ? halves[lo].second : 0x7c00;
  if (rm == 3) return keep_sign(above);
  if (rm == 4) return keep_sign(below);
  if (rm == 2) return keep_sign(negative ? above : below);
  if (x >= 65520) return 0x7c00;
  if (x <= -65520) return 0xfc00;
  if (x > 65504) return 0x7bff;
  if (x < -65504) return 0xfbff;
  __float128 to_below = x - (__float128)half_value(below),
             to_above = (__float128)half_value(above) - x;
  if (to_below != to_above) return keep_sign(to_below < to_above ? below : above);
  return keep_sign((half_value(below) == 0 ? 0 : (below & 1)) ? above : below);
}

static int failures = 0;
#define EXPECT(cond, ...)                                \
  do {                                                   \
    if (!(cond) && failures++ < 20) printf(__VA_ARGS__); \
  } while (0)

static unsigned long long state;
static unsigned long long next_random() {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static void float_and_double_to_half() {
  for (int k = 0; k < 200000; k++) {
    unsigned u = (unsigned)next_random();
    if (k % 3 == 0)
      u = (u & 0x807fffffu) | ((unsigned)(103 + next_random() % 42) << 23); /* half's range */
    float x = __uint_as_float(u);
    if (x != x) continue;
    for (int rm = 0; rm <= 4; rm++) {
      unsigned short got = _cl_f2h_bits(x, rm), want = reference((__float128)x, rm == 1 ? 0 : rm);
      EXPECT(got == want, "float %a to half, rounding %d: %04x, expected %04x\n", x, rm, got, want);
    }
  }
  for (int k = 0; k < 200000; k++) {
    unsigned long long u = next_random();
    if (k % 3 == 0)
      u = (u & 0x800fffffffffffffull) | ((unsigned long long)(997 + next_random() % 44) << 52);
    if (k % 5 == 0)
      u = (u & ~0x000001ffffffffffull) | (next_random() & 1); /* ties of half, a bit past them */
    double x = __longlong_as_double((long long)u);
    if (x != x) continue;
    for (int rm = 0; rm <= 4; rm++) {
      unsigned short got = _cl_d2h_bits(x, rm), want = reference((__float128)x, rm == 1 ? 0 : rm);
      EXPECT(got == want, "double %la to half, rounding %d: %04x, expected %04x\n", x, rm, got,
             want);
    }
  }
}

static void half_arithmetic() {
  for (int k = 0; k < 200000; k++) {
    _cl_half a = _cl_hb((ushort)next_random()), b = _cl_hb((ushort)next_random()),
             c = _cl_hb((ushort)next_random());
    __float128 A = half_value(a.b), B = half_value(b.b), C = half_value(c.b);
    if (!std::isfinite((double)A) || !std::isfinite((double)B) || !std::isfinite((double)C))
      continue;
    /* a zero result's sign is IEEE's, not the reference's */
    if (A + B != 0)
      EXPECT((a + b).b == reference(A + B, 0), "%04x + %04x: %04x\n", a.b, b.b, (a + b).b);
    if (A - B != 0)
      EXPECT((a - b).b == reference(A - B, 0), "%04x - %04x: %04x\n", a.b, b.b, (a - b).b);
    if (A * B != 0)
      EXPECT((a * b).b == reference(A * B, 0), "%04x * %04x: %04x\n", a.b, b.b, (a * b).b);
    if (B != 0 && A != 0)
      EXPECT((a / b).b == reference(A / B, 0), "%04x / %04x: %04x\n", a.b, b.b, (a / b).b);
    __float128 f = A * B + C;
    if (f != 0)
      EXPECT(_cl_fma(a, b, c).b == reference(f, 0), "fma(%04x, %04x, %04x)\n", a.b, b.b, c.b);
    EXPECT((a < b) == (A < B) && (a == b) == (A == B) && (a >= b) == (A >= B),
           "compare %04x %04x\n", a.b, b.b);
    EXPECT((-a).b == (a.b ^ 0x8000), "-%04x\n", a.b);
  }
}

/* what _cl_convert<D, 0, rm> gives for x, rm 2..4 */
template <class D, class S>
static D directed(S x, int rm) {
  return rm == 2 ? _cl_cvt1<D, 0, 2>(x) : rm == 3 ? _cl_cvt1<D, 0, 3>(x) : _cl_cvt1<D, 0, 4>(x);
}

static void directed_conversions() {
  const int modes[] = {0, 0, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
  for (int k = 0; k < 100000; k++) {
    unsigned long long u = next_random() >> (next_random() % 64);
    long long s = (long long)next_random() >> (next_random() % 64);
    int i = (int)s;
    unsigned ui = (unsigned)u;
    double d = k % 2 ? __longlong_as_double((long long)next_random())
                     : ldexp((double)(long long)next_random(), -(int)(next_random() % 200));
    for (int rm = 2; rm <= 4; rm++) {
      fesetround(modes[rm]);
      volatile long double lu = (long double)u, ls = (long double)s, li = (long double)i,
                           lui = (long double)ui;
      volatile double vd = d;
      float fu = (float)lu, fs = (float)ls, fi = (float)li, fui = (float)lui, fd = (float)vd;
      double du = (double)lu, ds = (double)ls;
      fesetround(FE_TONEAREST);
      EXPECT(directed<float>(u, rm) == fu, "ulong %llu to float, rounding %d\n", u, rm);
      EXPECT(directed<float>(s, rm) == fs, "long %lld to float, rounding %d\n", s, rm);
      EXPECT(directed<float>(i, rm) == fi, "int %d to float, rounding %d\n", i, rm);
      EXPECT(directed<float>(ui, rm) == fui, "uint %u to float, rounding %d\n", ui, rm);
      EXPECT(directed<double>(u, rm) == du, "ulong %llu to double, rounding %d\n", u, rm);
      EXPECT(directed<double>(s, rm) == ds, "long %lld to double, rounding %d\n", s, rm);
      float g = directed<float>(d, rm);
      EXPECT(g == fd || (g != g && fd != fd), "double %la to float, rounding %d: %a, expected %a\n",
             d, rm, g, fd);
    }
  }
}

static void special_values() {
  float whole;
  _cl_half half_whole;
  EXPECT(_cl_fract(NAN, &whole) != _cl_fract(NAN, &whole), "fract(NaN) is NaN\n");
  EXPECT(_cl_fract(INFINITY, &whole) == 0 && whole == INFINITY, "fract(inf) is 0\n");
  EXPECT(signbit(_cl_fract(-0.0f, &whole)), "fract(-0) is -0\n");
  EXPECT(_cl_fract(-0x1p-30f, &whole) == 0x1.fffffep-1f && whole == -1, "fract(-tiny) below 1\n");
  EXPECT(_cl_fract(_cl_hb(0x8001), &half_whole).b == 0x3bff && half_whole.b == 0xbc00,
         "half fract(-tiny) below 1\n");
  EXPECT(_cl_nextafter(_cl_hb(0x0000), _cl_hb(0x3c00)).b == 0x0001, "half nextafter(0, 1)\n");
  EXPECT(_cl_nextafter(_cl_hb(0x8000), _cl_hb(0xbc00)).b == 0x8001, "half nextafter(-0, -1)\n");
  EXPECT(_cl_nextafter(_cl_hb(0x3c00), _cl_hb(0x0000)).b == 0x3bff, "half nextafter(1, 0)\n");
  EXPECT(_cl_isnormal(_cl_hb(0x0400)) == 1 && _cl_isnormal(_cl_hb(0x03ff)) == 0, "half isnormal\n");
  EXPECT(_cl_isinf(_cl_hb(0xfc00)) == 1 && _cl_isnan(_cl_hb(0x7e00)) == 1 &&
             _cl_signbit(_cl_hb(0x8000)) == 1,
         "half classification\n");
  EXPECT((_cl_convert<int, 1, 1>(_cl_hb(0x7c00))) == 2147483647, "convert_int_sat_rte(half inf)\n");
  EXPECT((_cl_convert<short, 1, 0>(_cl_hb(0xfbff))) == -32768, "convert_short_sat(-65504)\n");
  EXPECT((_cl_convert<int, 1, 0>(_cl_hb(0x7e00))) == 0, "convert_int_sat(half NaN)\n");
  EXPECT((_cl_convert<_cl_half, 0, 2>(70000)).b == 0x7bff &&
             (_cl_convert<_cl_half, 0, 0>(70000)).b == 0x7c00,
         "int 70000 to half\n");
  EXPECT((_cl_convert<_cl_half, 0, 3>(2049)).b == 0x6801 &&
             (_cl_convert<_cl_half, 0, 0>(2049)).b == 0x6800,
         "int 2049 to half\n");
  EXPECT((_cl_convert<int, 0, 1>(_cl_hb(0x3e00))) == 2 &&
             (_cl_convert<int, 0, 1>(_cl_hb(0x4100))) == 2,
         "convert_int_rte(1.5h) and (2.5h)\n");
  EXPECT(_cl_abs(-2147483647 - 1) == 2147483648u && _cl_rotate(0x80000001u, 33u) == 0x00000003u,
         "abs, rotate\n");
  EXPECT(_cl_add_sat((short)30000, (short)30000) == 32767 && _cl_mul_hi(-1ll, 5ll) == -1,
         "add_sat, mul_hi\n");
}

int main(int argc, char **argv) {
  state = argc > 1 ? strtoull(argv[1], NULL, 10) | 1 : 88172645463325252ull;
  list_halves();
  float_and_double_to_half();
  half_arithmetic();
  directed_conversions();
  special_values();
  printf("%d failures\n", failures);
  return failures != 0;
}
