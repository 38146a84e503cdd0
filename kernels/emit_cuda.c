/* The CUDA C++ (NVRTC) and HIP C++ (hiprtc) emitter.
 *
 * The output is one translation unit: a prelude that gives C++ the OpenCL C
 * types and builtins (vector types _clv<T, N> with OpenCL's sizes and
 * alignments and with operators, swizzle helpers, conversions with OpenCL's
 * rounding and saturation, the integer, math, common, geometric and
 * relational builtins, vloadN/vstoreN, atomics), then the program's structs,
 * __constant variables, helper functions (static __device__) and kernels
 * (extern "C" __global__).
 *
 * Launch ABI (kernels/cuda_abi.h has the host-side struct):
 *  - parameters keep their order; a __global/__constant pointer is a device
 *    pointer, a scalar, vector or struct is passed by value with OpenCL's
 *    layout (a 3-vector takes 4 components);
 *  - a __local pointer parameter becomes a `uint` byte offset into the
 *    kernel's dynamic shared memory (extern __shared__ _cl_dynamic_shared[]):
 *    the runtime lays the __local arguments out in parameter order, each at a
 *    multiple of 16 bytes, passes each one's offset, and launches with the
 *    total as the dynamic shared memory size;
 *  - one hidden parameter follows the others: struct _agpu_launch by value
 *    (32 bytes: uint group_offset[3], uint work_dim, uint num_groups[3],
 *    uint reserved), so that get_group_id/get_global_id stay right when the
 *    runtime splits a grid over several launches, and get_num_groups,
 *    get_global_size and get_work_dim give the whole launch's values.
 *
 * OpenCL semantics kept: shift counts masked to the promoted width; signed
 * division and remainder as C (the same in CUDA); abs returns unsigned;
 * comparisons of vectors give -1/0 masks; convert_T_sat and the rounding
 * modes; float-to-int casts use the device's saturating conversion.
 * Rejected with a diagnostic: half arithmetic.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "builtins.h"
#include "gpu_emit.h"
#include "translate.h"

static const char cuda_prelude[] =
    "/* anygpu CUDA/HIP prelude: OpenCL C types and builtins in C++ */\n"
    "typedef unsigned char uchar;\n"
    "typedef unsigned short ushort;\n"
    "typedef unsigned int uint;\n"
    "typedef long long llong;\n"
    "typedef unsigned long long ullong;\n"
    "#define _CLD __device__ __forceinline__\n"
    "template<class T, int N> struct alignas(sizeof(T) * (N == 3 ? 4 : N)) _clv {\n"
    "  T s[N == 3 ? 4 : N];\n"
    "};\n"
    "template<class T> struct _cl_tr { typedef T elem; enum { n = 1, vec = 0 }; };\n"
    "template<class T, int N> struct _cl_tr<_clv<T, N> > { typedef T elem; enum { n = N, vec = 1 }; };\n"
    "template<class T> struct _cl_id { typedef T t; };\n"
    "template<class T> struct _cl_u { typedef T t; };\n"
    "template<> struct _cl_u<signed char> { typedef unsigned char t; };\n"
    "template<> struct _cl_u<short> { typedef unsigned short t; };\n"
    "template<> struct _cl_u<int> { typedef unsigned int t; };\n"
    "template<> struct _cl_u<long long> { typedef unsigned long long t; };\n"
    "template<class T> struct _cl_m { typedef int t; };\n"
    "template<> struct _cl_m<signed char> { typedef signed char t; };\n"
    "template<> struct _cl_m<unsigned char> { typedef signed char t; };\n"
    "template<> struct _cl_m<short> { typedef short t; };\n"
    "template<> struct _cl_m<unsigned short> { typedef short t; };\n"
    "template<> struct _cl_m<long long> { typedef long long t; };\n"
    "template<> struct _cl_m<unsigned long long> { typedef long long t; };\n"
    "template<> struct _cl_m<double> { typedef long long t; };\n"
    "template<class T> struct _cl_lim;\n"
    "#define _CL_LIM(T, lo, hi) template<> struct _cl_lim<T> { static constexpr _CLD T min() { return lo; } static constexpr _CLD T max() { return hi; } };\n"
    "_CL_LIM(signed char, -128, 127) _CL_LIM(unsigned char, 0, 255) _CL_LIM(short, -32768, 32767)\n"
    "_CL_LIM(unsigned short, 0, 65535) _CL_LIM(int, (-2147483647 - 1), 2147483647) _CL_LIM(unsigned int, 0u, 4294967295u)\n"
    "_CL_LIM(long long, (-9223372036854775807ll - 1), 9223372036854775807ll) _CL_LIM(unsigned long long, 0ull, 18446744073709551615ull)\n"
    "template<class T> struct _cl_sc { typedef int ok; };\n"
    "template<class T, int N> struct _cl_sc<_clv<T, N> > {};\n"
    "#define _CLT template<class T, typename _cl_sc<T>::ok * = nullptr>\n"
    "template<class T> constexpr _CLD bool _cl_signed() { return (T)-1 < (T)0; }\n"
    "/* components */\n"
    "template<class T> _CLD const T &_cl_c(const T &x, int) { return x; }\n"
    "template<class T, int N> _CLD const T &_cl_c(const _clv<T, N> &x, int i) { return x.s[i]; }\n"
    "/* construction */\n"
    "template<class T, int N> struct _cl_b {\n"
    "  _clv<T, N> v; int i;\n"
    "  _CLD void put(T x) { v.s[i++] = x; }\n"
    "  template<int M> _CLD void put(const _clv<T, M> &x) { for (int k = 0; k < M; k++) v.s[i++] = x.s[k]; }\n"
    "};\n"
    "template<class T, int N, class... A> _CLD _clv<T, N> _cl_make(A... a) {\n"
    "  _cl_b<T, N> b; b.i = 0; (b.put(a), ...); if (N == 3) b.v.s[3] = T(); return b.v;\n"
    "}\n"
    "template<class T, int N> _CLD _clv<T, N> _cl_splat(T x) {\n"
    "  _clv<T, N> r; for (int i = 0; i < (N == 3 ? 4 : N); i++) r.s[i] = x; return r;\n"
    "}\n"
    "/* swizzles */\n"
    "template<int... I, class T, int N> _CLD _clv<T, sizeof...(I)> _cl_swz(const _clv<T, N> &v) {\n"
    "  return _cl_make<T, sizeof...(I)>(v.s[I]...);\n"
    "}\n"
    "template<class V, int... I> struct _cl_swzref {\n"
    "  V &v;\n"
    "  typedef typename _cl_tr<V>::elem T;\n"
    "  typedef _clv<T, sizeof...(I)> R;\n"
    "  _CLD operator R() const { return _cl_make<T, sizeof...(I)>(v.s[I]...); }\n"
    "  _CLD R get() const { return _cl_make<T, sizeof...(I)>(v.s[I]...); }\n"
    "  _CLD R operator=(const R &r) { int k = 0; ((v.s[I] = r.s[k++]), ...); return r; }\n"
    "#define _CL_SWZ_OP(op) _CLD R operator op##=(const R &r) { return *this = get() op r; }\n"
    "  _CL_SWZ_OP(+) _CL_SWZ_OP(-) _CL_SWZ_OP(*) _CL_SWZ_OP(/) _CL_SWZ_OP(%) _CL_SWZ_OP(&) _CL_SWZ_OP(|) _CL_SWZ_OP(^)\n"
    "  _CL_SWZ_OP(<<) _CL_SWZ_OP(>>)\n"
    "#undef _CL_SWZ_OP\n"
    "};\n"
    "template<int... I, class V> _CLD _cl_swzref<V, I...> _cl_swzr(V &v) { return _cl_swzref<V, I...>{v}; }\n"
    "/* operators */\n"
    "#define _CL_MAP1(expr) _clv<T, N> r; for (int i = 0; i < N; i++) r.s[i] = (T)(expr); if (N == 3) r.s[3] = T(); return r;\n"
    "#define _CL_BIN(op)                                                                                         \\\n"
    "  template<class T, int N> _CLD _clv<T, N> operator op(const _clv<T, N> &a, const _clv<T, N> &b) { _CL_MAP1(a.s[i] op b.s[i]) } \\\n"
    "  template<class T, int N> _CLD _clv<T, N> operator op(const _clv<T, N> &a, typename _cl_id<T>::t b) { _CL_MAP1(a.s[i] op b) }  \\\n"
    "  template<class T, int N> _CLD _clv<T, N> operator op(typename _cl_id<T>::t a, const _clv<T, N> &b) { _CL_MAP1(a op b.s[i]) }  \\\n"
    "  template<class T, int N, class B> _CLD _clv<T, N> &operator op##=(_clv<T, N> &a, const B &b) { return a = a op b; }\n"
    "_CL_BIN(+) _CL_BIN(-) _CL_BIN(*) _CL_BIN(/) _CL_BIN(%) _CL_BIN(&) _CL_BIN(|) _CL_BIN(^)\n"
    "#undef _CL_BIN\n"
    "template<class T> _CLD T _cl_shl(T a, int b) { return (T)(a << (b & (int)(sizeof(T) * 8 - 1))); }\n"
    "template<class T> _CLD T _cl_shr(T a, int b) { return (T)(a >> (b & (int)(sizeof(T) * 8 - 1))); }\n"
    "#define _CL_SHIFT(op, fn)                                                                                           \\\n"
    "  template<class T, int N, class U> _CLD _clv<T, N> operator op(const _clv<T, N> &a, const _clv<U, N> &b) { _CL_MAP1(fn(a.s[i], (int)b.s[i])) } \\\n"
    "  template<class T, int N> _CLD _clv<T, N> operator op(const _clv<T, N> &a, typename _cl_id<T>::t b) { _CL_MAP1(fn(a.s[i], (int)b)) }        \\\n"
    "  template<class T, int N, class B> _CLD _clv<T, N> &operator op##=(_clv<T, N> &a, const B &b) { return a = a op b; }\n"
    "_CL_SHIFT(<<, _cl_shl) _CL_SHIFT(>>, _cl_shr)\n"
    "#undef _CL_SHIFT\n"
    "#define _CL_CMP(op)                                                                                                  \\\n"
    "  template<class T, int N> _CLD _clv<typename _cl_m<T>::t, N> operator op(const _clv<T, N> &a, const _clv<T, N> &b) { \\\n"
    "    typedef typename _cl_m<T>::t M; _clv<M, N> r; for (int i = 0; i < N; i++) r.s[i] = (M)-(M)(a.s[i] op b.s[i]); if (N == 3) r.s[3] = 0; return r; }\n"
    "_CL_CMP(==) _CL_CMP(!=) _CL_CMP(<) _CL_CMP(<=) _CL_CMP(>) _CL_CMP(>=) _CL_CMP(&&) _CL_CMP(||)\n"
    "#undef _CL_CMP\n"
    "template<class T, int N> _CLD _clv<T, N> operator-(const _clv<T, N> &a) { _CL_MAP1(-a.s[i]) }\n"
    "template<class T, int N> _CLD _clv<T, N> operator+(const _clv<T, N> &a) { return a; }\n"
    "template<class T, int N> _CLD _clv<T, N> operator~(const _clv<T, N> &a) { _CL_MAP1(~a.s[i]) }\n"
    "template<class T, int N> _CLD _clv<typename _cl_m<T>::t, N> operator!(const _clv<T, N> &a) {\n"
    "  typedef typename _cl_m<T>::t M; _clv<M, N> r; for (int i = 0; i < N; i++) r.s[i] = (M)-(M)(!a.s[i]); if (N == 3) r.s[3] = 0; return r; }\n"
    "template<class T, int N> _CLD _clv<T, N> &operator++(_clv<T, N> &a) { return a = a + (T)1; }\n"
    "template<class T, int N> _CLD _clv<T, N> &operator--(_clv<T, N> &a) { return a = a - (T)1; }\n"
    "template<class T, int N> _CLD _clv<T, N> operator++(_clv<T, N> &a, int) { _clv<T, N> o = a; a = a + (T)1; return o; }\n"
    "template<class T, int N> _CLD _clv<T, N> operator--(_clv<T, N> &a, int) { _clv<T, N> o = a; a = a - (T)1; return o; }\n"
    "/* vector ?: (OpenCL: per component, the most significant bit of the condition) */\n"
    "template<class C, class V> _CLD V _cl_vcond(const C &c, const V &a, const V &b) {\n"
    "  V r; for (int i = 0; i < _cl_tr<V>::n; i++) r.s[i] = c.s[i] < 0 ? a.s[i] : b.s[i]; return r; }\n"
    "/* component-wise application of scalar functions */\n"
    "#define _CL_V1(name) template<class T, int N> _CLD auto name(const _clv<T, N> &a) { \\\n"
    "    typedef decltype(name(a.s[0])) R; _clv<R, N> r; for (int i = 0; i < N; i++) r.s[i] = name(a.s[i]); if (N == 3) r.s[3] = R(); return r; }\n"
    "#define _CL_V2(name) template<class T, int N, class B> _CLD auto name(const _clv<T, N> &a, const B &b) { \\\n"
    "    typedef decltype(name(a.s[0], _cl_c(b, 0))) R; _clv<R, N> r; for (int i = 0; i < N; i++) r.s[i] = name(a.s[i], _cl_c(b, i)); if (N == 3) r.s[3] = R(); return r; }\n"
    "#define _CL_V3(name) template<class T, int N, class B, class C> _CLD auto name(const _clv<T, N> &a, const B &b, const C &c) { \\\n"
    "    typedef decltype(name(a.s[0], _cl_c(b, 0), _cl_c(c, 0))) R; _clv<R, N> r; for (int i = 0; i < N; i++) r.s[i] = name(a.s[i], _cl_c(b, i), _cl_c(c, i)); if (N == 3) r.s[3] = R(); return r; }\n"
    "/* math: float and double */\n"
    "#define _CL_F1(name, f, d) _CLD float name(float x) { return f(x); } _CLD double name(double x) { return d(x); } _CL_V1(name)\n"
    "#define _CL_F2(name, f, d) _CLD float name(float x, float y) { return f(x, y); } _CLD double name(double x, double y) { return d(x, y); } _CL_V2(name)\n"
    "#define _CL_F3(name, f, d) _CLD float name(float x, float y, float z) { return f(x, y, z); } _CLD double name(double x, double y, double z) { return d(x, y, z); } _CL_V3(name)\n"
    "_CL_F1(_cl_acos, acosf, acos) _CL_F1(_cl_acosh, acoshf, acosh) _CL_F1(_cl_asin, asinf, asin) _CL_F1(_cl_asinh, asinhf, asinh)\n"
    "_CL_F1(_cl_atan, atanf, atan) _CL_F1(_cl_atanh, atanhf, atanh) _CL_F1(_cl_cbrt, cbrtf, cbrt) _CL_F1(_cl_ceil, ceilf, ceil)\n"
    "_CL_F1(_cl_cos, cosf, cos) _CL_F1(_cl_cosh, coshf, cosh) _CL_F1(_cl_cospi, cospif, cospi) _CL_F1(_cl_erfc, erfcf, erfc)\n"
    "_CL_F1(_cl_erf, erff, erf) _CL_F1(_cl_exp, expf, exp) _CL_F1(_cl_exp2, exp2f, exp2) _CL_F1(_cl_exp10, exp10f, exp10)\n"
    "_CL_F1(_cl_expm1, expm1f, expm1) _CL_F1(_cl_fabs, fabsf, fabs) _CL_F1(_cl_floor, floorf, floor) _CL_F1(_cl_lgamma, lgammaf, lgamma)\n"
    "_CL_F1(_cl_log, logf, log) _CL_F1(_cl_log2, log2f, log2) _CL_F1(_cl_log10, log10f, log10) _CL_F1(_cl_log1p, log1pf, log1p)\n"
    "_CL_F1(_cl_logb, logbf, logb) _CL_F1(_cl_rint, rintf, rint) _CL_F1(_cl_round, roundf, round) _CL_F1(_cl_rsqrt, rsqrtf, rsqrt)\n"
    "_CL_F1(_cl_sin, sinf, sin) _CL_F1(_cl_sinh, sinhf, sinh) _CL_F1(_cl_sinpi, sinpif, sinpi) _CL_F1(_cl_sqrt, sqrtf, sqrt)\n"
    "_CL_F1(_cl_tan, tanf, tan) _CL_F1(_cl_tanh, tanhf, tanh) _CL_F1(_cl_tgamma, tgammaf, tgamma) _CL_F1(_cl_trunc, truncf, trunc)\n"
    "_CLD float _cl_fast_sin(float x) { return __sinf(x); } _CLD double _cl_fast_sin(double x) { return sin(x); } _CL_V1(_cl_fast_sin)\n"
    "_CLD float _cl_fast_cos(float x) { return __cosf(x); } _CLD double _cl_fast_cos(double x) { return cos(x); } _CL_V1(_cl_fast_cos)\n"
    "_CLD float _cl_fast_exp(float x) { return __expf(x); } _CLD double _cl_fast_exp(double x) { return exp(x); } _CL_V1(_cl_fast_exp)\n"
    "_CLD float _cl_fast_log(float x) { return __logf(x); } _CLD double _cl_fast_log(double x) { return log(x); } _CL_V1(_cl_fast_log)\n"
    "#define _CL_PI_F 3.14159265358979323846f\n"
    "#define _CL_PI_D 3.14159265358979323846\n"
    "_CLD float _cl_acospi(float x) { return acosf(x) / _CL_PI_F; } _CLD double _cl_acospi(double x) { return acos(x) / _CL_PI_D; } _CL_V1(_cl_acospi)\n"
    "_CLD float _cl_asinpi(float x) { return asinf(x) / _CL_PI_F; } _CLD double _cl_asinpi(double x) { return asin(x) / _CL_PI_D; } _CL_V1(_cl_asinpi)\n"
    "_CLD float _cl_atanpi(float x) { return atanf(x) / _CL_PI_F; } _CLD double _cl_atanpi(double x) { return atan(x) / _CL_PI_D; } _CL_V1(_cl_atanpi)\n"
    "_CLD float _cl_tanpi(float x) { return sinpif(x) / cospif(x); } _CLD double _cl_tanpi(double x) { return sinpi(x) / cospi(x); } _CL_V1(_cl_tanpi)\n"
    "_CLD float _cl_recip(float x) { return 1.0f / x; } _CLD double _cl_recip(double x) { return 1.0 / x; } _CL_V1(_cl_recip)\n"
    "_CLD int _cl_ilogb(float x) { return ilogbf(x); } _CLD int _cl_ilogb(double x) { return ilogb(x); } _CL_V1(_cl_ilogb)\n"
    "_CL_F2(_cl_atan2, atan2f, atan2) _CL_F2(_cl_copysign, copysignf, copysign) _CL_F2(_cl_fdim, fdimf, fdim)\n"
    "_CL_F2(_cl_fmax, fmaxf, fmax) _CL_F2(_cl_fmin, fminf, fmin) _CL_F2(_cl_fmod, fmodf, fmod) _CL_F2(_cl_hypot, hypotf, hypot)\n"
    "_CL_F2(_cl_nextafter, nextafterf, nextafter) _CL_F2(_cl_pow, powf, pow) _CL_F2(_cl_remainder, remainderf, remainder)\n"
    "_CLD float _cl_powr(float x, float y) { return powf(x, y); } _CLD double _cl_powr(double x, double y) { return pow(x, y); } _CL_V2(_cl_powr)\n"
    "_CLD float _cl_atan2pi(float y, float x) { return atan2f(y, x) / _CL_PI_F; } _CLD double _cl_atan2pi(double y, double x) { return atan2(y, x) / _CL_PI_D; } _CL_V2(_cl_atan2pi)\n"
    "_CLD float _cl_divide(float x, float y) { return x / y; } _CLD double _cl_divide(double x, double y) { return x / y; } _CL_V2(_cl_divide)\n"
    "_CLD float _cl_fast_divide(float x, float y) { return __fdividef(x, y); } _CLD double _cl_fast_divide(double x, double y) { return x / y; } _CL_V2(_cl_fast_divide)\n"
    "_CLD float _cl_maxmag(float x, float y) { float a = fabsf(x), b = fabsf(y); return a > b ? x : b > a ? y : fmaxf(x, y); }\n"
    "_CLD double _cl_maxmag(double x, double y) { double a = fabs(x), b = fabs(y); return a > b ? x : b > a ? y : fmax(x, y); } _CL_V2(_cl_maxmag)\n"
    "_CLD float _cl_minmag(float x, float y) { float a = fabsf(x), b = fabsf(y); return a < b ? x : b < a ? y : fminf(x, y); }\n"
    "_CLD double _cl_minmag(double x, double y) { double a = fabs(x), b = fabs(y); return a < b ? x : b < a ? y : fmin(x, y); } _CL_V2(_cl_minmag)\n"
    "_CLD float _cl_ldexp(float x, int n) { return ldexpf(x, n); } _CLD double _cl_ldexp(double x, int n) { return ldexp(x, n); } _CL_V2(_cl_ldexp)\n"
    "_CLD float _cl_pown(float x, int n) { return powf(x, (float)n); } _CLD double _cl_pown(double x, int n) { return pow(x, (double)n); } _CL_V2(_cl_pown)\n"
    "_CLD float _cl_rootn(float x, int n) { return (x < 0.0f && (n & 1)) ? -powf(-x, 1.0f / (float)n) : powf(x, 1.0f / (float)n); }\n"
    "_CLD double _cl_rootn(double x, int n) { return (x < 0.0 && (n & 1)) ? -pow(-x, 1.0 / (double)n) : pow(x, 1.0 / (double)n); } _CL_V2(_cl_rootn)\n"
    "_CL_F3(_cl_fma, fmaf, fma)\n"
    "_CLD float _cl_mad(float a, float b, float c) { return a * b + c; } _CLD double _cl_mad(double a, double b, double c) { return a * b + c; } _CL_V3(_cl_mad)\n"
    "/* math with an out-pointer */\n"
    "_CLD float _cl_fract(float x, float *i) { float f = floorf(x); *i = f; return fminf(x - f, 0x1.fffffep-1f); }\n"
    "_CLD double _cl_fract(double x, double *i) { double f = floor(x); *i = f; return fmin(x - f, 0x1.fffffffffffffp-1); }\n"
    "_CLD float _cl_modf(float x, float *i) { return modff(x, i); } _CLD double _cl_modf(double x, double *i) { return modf(x, i); }\n"
    "_CLD float _cl_sincos(float x, float *c) { float s; sincosf(x, &s, c); return s; }\n"
    "_CLD double _cl_sincos(double x, double *c) { double s; sincos(x, &s, c); return s; }\n"
    "_CLD float _cl_frexp(float x, int *e) { return frexpf(x, e); } _CLD double _cl_frexp(double x, int *e) { return frexp(x, e); }\n"
    "_CLD float _cl_remquo(float x, float y, int *q) { return remquof(x, y, q); } _CLD double _cl_remquo(double x, double y, int *q) { return remquo(x, y, q); }\n"
    "_CLD float _cl_lgamma_r(float x, int *s) { *s = x > 0.0f ? 1 : (((int)floorf(x)) & 1) ? -1 : 1; return lgammaf(x); }\n"
    "_CLD double _cl_lgamma_r(double x, int *s) { *s = x > 0.0 ? 1 : (((long long)floor(x)) & 1) ? -1 : 1; return lgamma(x); }\n"
    "#define _CL_VP(name) template<class T, int N, class P> _CLD _clv<T, N> name(const _clv<T, N> &a, _clv<P, N> *p) { \\\n"
    "    _clv<T, N> r; for (int i = 0; i < N; i++) r.s[i] = name(a.s[i], &p->s[i]); if (N == 3) r.s[3] = T(); return r; }\n"
    "_CL_VP(_cl_fract) _CL_VP(_cl_modf) _CL_VP(_cl_sincos) _CL_VP(_cl_frexp) _CL_VP(_cl_lgamma_r)\n"
    "template<class T, int N> _CLD _clv<T, N> _cl_remquo(const _clv<T, N> &a, const _clv<T, N> &b, _clv<int, N> *p) {\n"
    "  _clv<T, N> r; for (int i = 0; i < N; i++) r.s[i] = _cl_remquo(a.s[i], b.s[i], &p->s[i]); if (N == 3) r.s[3] = T(); return r; }\n"
    "/* common */\n"
    "template<class T> _CLD T _cl_clampf(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }\n"
    "_CLD float _cl_degrees(float x) { return x * (180.0f / _CL_PI_F); } _CLD double _cl_degrees(double x) { return x * (180.0 / _CL_PI_D); } _CL_V1(_cl_degrees)\n"
    "_CLD float _cl_radians(float x) { return x * (_CL_PI_F / 180.0f); } _CLD double _cl_radians(double x) { return x * (_CL_PI_D / 180.0); } _CL_V1(_cl_radians)\n"
    "_CLD float _cl_mix(float x, float y, float a) { return x + (y - x) * a; } _CLD double _cl_mix(double x, double y, double a) { return x + (y - x) * a; } _CL_V3(_cl_mix)\n"
    "_CLD float _cl_step(float e, float x) { return x < e ? 0.0f : 1.0f; } _CLD double _cl_step(double e, double x) { return x < e ? 0.0 : 1.0; } _CL_V2(_cl_step)\n"
    "_CLD float _cl_smoothstep(float e0, float e1, float x) { float t = fminf(fmaxf((x - e0) / (e1 - e0), 0.0f), 1.0f); return t * t * (3.0f - 2.0f * t); }\n"
    "_CLD double _cl_smoothstep(double e0, double e1, double x) { double t = fmin(fmax((x - e0) / (e1 - e0), 0.0), 1.0); return t * t * (3.0 - 2.0 * t); } _CL_V3(_cl_smoothstep)\n"
    "_CLD float _cl_sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x != x ? 0.0f : x; }\n"
    "_CLD double _cl_sign(double x) { return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x != x ? 0.0 : x; } _CL_V1(_cl_sign)\n"
    "/* max/min/clamp: integers and floats (floats as fmax/fmin) */\n"
    "_CLT _CLD T _cl_max(T a, T b) { return a < b ? b : a; }\n"
    "_CLT _CLD T _cl_min(T a, T b) { return b < a ? b : a; }\n"
    "_CLD float _cl_max(float a, float b) { return fmaxf(a, b); } _CLD double _cl_max(double a, double b) { return fmax(a, b); }\n"
    "_CLD float _cl_min(float a, float b) { return fminf(a, b); } _CLD double _cl_min(double a, double b) { return fmin(a, b); }\n"
    "_CLT _CLD T _cl_clamp(T x, T lo, T hi) { return _cl_min(_cl_max(x, lo), hi); }\n"
    "_CL_V2(_cl_max) _CL_V2(_cl_min) _CL_V3(_cl_clamp)\n"
    "/* integer */\n"
    "_CLT _CLD typename _cl_u<T>::t _cl_abs(T x) { typedef typename _cl_u<T>::t U; return x < (T)0 ? (U)((U)0 - (U)x) : (U)x; }\n"
    "_CLT _CLD typename _cl_u<T>::t _cl_abs_diff(T a, T b) { typedef typename _cl_u<T>::t U; return a > b ? (U)((U)a - (U)b) : (U)((U)b - (U)a); }\n"
    "_CLT _CLD T _cl_add_sat(T a, T b) {\n"
    "  typedef typename _cl_u<T>::t U; T r = (T)((U)a + (U)b);\n"
    "  if constexpr (_cl_signed<T>()) { if (b > (T)0 && r < a) r = _cl_lim<T>::max(); else if (b < (T)0 && r > a) r = _cl_lim<T>::min(); }\n"
    "  else { if (r < a) r = _cl_lim<T>::max(); }\n"
    "  return r; }\n"
    "_CLT _CLD T _cl_sub_sat(T a, T b) {\n"
    "  typedef typename _cl_u<T>::t U; T r = (T)((U)a - (U)b);\n"
    "  if constexpr (_cl_signed<T>()) { if (b < (T)0 && r < a) r = _cl_lim<T>::max(); else if (b > (T)0 && r > a) r = _cl_lim<T>::min(); }\n"
    "  else { if (r > a) r = (T)0; }\n"
    "  return r; }\n"
    "_CLT _CLD T _cl_hadd(T a, T b) { return (T)((a >> 1) + (b >> 1) + (a & b & (T)1)); }\n"
    "_CLT _CLD T _cl_rhadd(T a, T b) { return (T)((a >> 1) + (b >> 1) + ((a | b) & (T)1)); }\n"
    "_CLT _CLD T _cl_mul_hi(T a, T b) {\n"
    "  if constexpr (sizeof(T) < 4) return (T)(((int)a * (int)b) >> (sizeof(T) * 8));\n"
    "  else if constexpr (sizeof(T) == 4) return _cl_signed<T>() ? (T)__mulhi((int)a, (int)b) : (T)__umulhi((unsigned)a, (unsigned)b);\n"
    "  else return _cl_signed<T>() ? (T)__mul64hi((long long)a, (long long)b) : (T)__umul64hi((unsigned long long)a, (unsigned long long)b); }\n"
    "_CLT _CLD T _cl_mad_hi(T a, T b, T c) { return (T)(_cl_mul_hi(a, b) + c); }\n"
    "_CLT _CLD T _cl_mad_sat(T a, T b, T c) {\n"
    "  if constexpr (sizeof(T) < 8) { long long r = (long long)a * (long long)b + (long long)c;\n"
    "    if constexpr (!_cl_signed<T>() && sizeof(T) == 4) { unsigned long long u = (unsigned long long)a * (unsigned long long)b + (unsigned long long)c;\n"
    "      return u > (unsigned long long)_cl_lim<T>::max() ? _cl_lim<T>::max() : (T)u; }\n"
    "    return r < (long long)_cl_lim<T>::min() ? _cl_lim<T>::min() : r > (long long)_cl_lim<T>::max() ? _cl_lim<T>::max() : (T)r; }\n"
    "  else { typedef typename _cl_u<T>::t U; T hi = _cl_mul_hi(a, b); T lo = (T)((U)a * (U)b);\n"
    "  if constexpr (_cl_signed<T>()) { if ((hi != 0 || lo < 0) && (hi != -1 || lo >= 0)) return (hi < 0) ? _cl_lim<T>::min() : _cl_lim<T>::max(); return _cl_add_sat(lo, c); }\n"
    "  else { if (hi != 0) return _cl_lim<T>::max(); return _cl_add_sat(lo, c); } } }\n"
    "_CLT _CLD T _cl_rotate(T v, T n) {\n"
    "  typedef typename _cl_u<T>::t U; const int w = sizeof(T) * 8; int k = (int)((U)n & (U)(w - 1));\n"
    "  return k == 0 ? v : (T)(U)(((U)v << k) | ((U)v >> (w - k))); }\n"
    "_CLT _CLD T _cl_clz(T x) {\n"
    "  typedef typename _cl_u<T>::t U;\n"
    "  if (sizeof(T) == 8) return (T)__clzll((long long)x);\n"
    "  return (T)(__clz((int)(unsigned)(U)x) - (32 - (int)sizeof(T) * 8)); }\n"
    "_CLT _CLD T _cl_popcount(T x) {\n"
    "  typedef typename _cl_u<T>::t U;\n"
    "  if (sizeof(T) == 8) return (T)__popcll((unsigned long long)x);\n"
    "  return (T)__popc((unsigned)(U)x); }\n"
    "_CLT _CLD T _cl_mul24(T a, T b) { return (T)(a * b); }\n"
    "_CLT _CLD T _cl_mad24(T a, T b, T c) { return (T)(a * b + c); }\n"
    "_CLD short _cl_upsample(signed char h, unsigned char l) { return (short)(((unsigned)(unsigned char)h << 8) | l); }\n"
    "_CLD unsigned short _cl_upsample(unsigned char h, unsigned char l) { return (unsigned short)(((unsigned)h << 8) | l); }\n"
    "_CLD int _cl_upsample(short h, unsigned short l) { return (int)(((unsigned)(unsigned short)h << 16) | l); }\n"
    "_CLD unsigned _cl_upsample(unsigned short h, unsigned short l) { return ((unsigned)h << 16) | l; }\n"
    "_CLD long long _cl_upsample(int h, unsigned l) { return (long long)(((unsigned long long)(unsigned)h << 32) | l); }\n"
    "_CLD unsigned long long _cl_upsample(unsigned h, unsigned l) { return ((unsigned long long)h << 32) | l; }\n"
    "_CL_V1(_cl_abs) _CL_V2(_cl_abs_diff) _CL_V2(_cl_add_sat) _CL_V2(_cl_sub_sat) _CL_V2(_cl_hadd) _CL_V2(_cl_rhadd)\n"
    "_CL_V2(_cl_mul_hi) _CL_V3(_cl_mad_hi) _CL_V3(_cl_mad_sat) _CL_V2(_cl_rotate) _CL_V1(_cl_clz) _CL_V1(_cl_popcount)\n"
    "_CL_V2(_cl_mul24) _CL_V3(_cl_mad24) _CL_V2(_cl_upsample)\n"
    "/* geometric */\n"
    "_CLD float _cl_dot(float a, float b) { return a * b; } _CLD double _cl_dot(double a, double b) { return a * b; }\n"
    "template<class T, int N> _CLD T _cl_dot(const _clv<T, N> &a, const _clv<T, N> &b) { T r = 0; for (int i = 0; i < N; i++) r += a.s[i] * b.s[i]; return r; }\n"
    "template<class V> _CLD auto _cl_length(const V &a) { return _cl_sqrt(_cl_dot(a, a)); }\n"
    "template<class V> _CLD auto _cl_distance(const V &a, const V &b) { return _cl_length(a - b); }\n"
    "template<class V> _CLD V _cl_normalize(const V &a) { auto l = _cl_length(a); return l == 0 ? a : a / l; }\n"
    "template<class T> _CLD _clv<T, 3> _cl_cross(const _clv<T, 3> &a, const _clv<T, 3> &b) {\n"
    "  return _cl_make<T, 3>(a.s[1] * b.s[2] - a.s[2] * b.s[1], a.s[2] * b.s[0] - a.s[0] * b.s[2], a.s[0] * b.s[1] - a.s[1] * b.s[0]); }\n"
    "template<class T> _CLD _clv<T, 4> _cl_cross(const _clv<T, 4> &a, const _clv<T, 4> &b) {\n"
    "  return _cl_make<T, 4>(a.s[1] * b.s[2] - a.s[2] * b.s[1], a.s[2] * b.s[0] - a.s[0] * b.s[2], a.s[0] * b.s[1] - a.s[1] * b.s[0], (T)0); }\n"
    "/* relational: scalars give int 0/1, vectors -1/0 in the signed type of the element's size */\n"
    "#define _CL_R2(name, expr)                                                                                          \\\n"
    "  _CLT _CLD int name(T a, T b) { return (expr) ? 1 : 0; }                                            \\\n"
    "  template<class T, int N> _CLD _clv<typename _cl_m<T>::t, N> name(const _clv<T, N> &x, const _clv<T, N> &y) {   \\\n"
    "    typedef typename _cl_m<T>::t M; _clv<M, N> r; for (int i = 0; i < N; i++) { T a = x.s[i], b = y.s[i]; r.s[i] = (expr) ? (M)-1 : (M)0; } if (N == 3) r.s[3] = 0; return r; }\n"
    "#define _CL_R1(name, expr)                                                                                          \\\n"
    "  _CLT _CLD int name(T a) { return (expr) ? 1 : 0; }                                                 \\\n"
    "  template<class T, int N> _CLD _clv<typename _cl_m<T>::t, N> name(const _clv<T, N> &x) {                          \\\n"
    "    typedef typename _cl_m<T>::t M; _clv<M, N> r; for (int i = 0; i < N; i++) { T a = x.s[i]; r.s[i] = (expr) ? (M)-1 : (M)0; } if (N == 3) r.s[3] = 0; return r; }\n"
    "_CL_R2(_cl_isequal, a == b) _CL_R2(_cl_isnotequal, a != b) _CL_R2(_cl_isgreater, a > b) _CL_R2(_cl_isgreaterequal, a >= b)\n"
    "_CL_R2(_cl_isless, a < b) _CL_R2(_cl_islessequal, a <= b) _CL_R2(_cl_islessgreater, a < b || a > b)\n"
    "_CL_R2(_cl_isordered, a == a && b == b) _CL_R2(_cl_isunordered, a != a || b != b)\n"
    "_CL_R1(_cl_isfinite, isfinite(a)) _CL_R1(_cl_isinf, isinf(a)) _CL_R1(_cl_isnan, a != a) _CL_R1(_cl_signbit, signbit(a))\n"
    "_CL_R1(_cl_isnormal, isfinite(a) && fabs((double)a) >= (sizeof(T) == 4 ? 1.17549435e-38 : 2.2250738585072014e-308))\n"
    "_CLT _CLD int _cl_any(T x) { return x < 0; }\n"
    "_CLT _CLD int _cl_all(T x) { return x < 0; }\n"
    "template<class T, int N> _CLD int _cl_any(const _clv<T, N> &x) { for (int i = 0; i < N; i++) if (x.s[i] < 0) return 1; return 0; }\n"
    "template<class T, int N> _CLD int _cl_all(const _clv<T, N> &x) { for (int i = 0; i < N; i++) if (!(x.s[i] < 0)) return 0; return 1; }\n"
    "template<class D, class S> _CLD D _cl_as(const S &s) { static_assert(sizeof(D) == sizeof(S), \"as_T: sizes differ\"); union { S s; D d; } u; u.s = s; return u.d; }\n"
    "template<class T> struct _cl_bits { typedef typename _cl_u<T>::t t; };\n"
    "template<> struct _cl_bits<float> { typedef unsigned t; };\n"
    "template<> struct _cl_bits<double> { typedef unsigned long long t; };\n"
    "_CLT _CLD T _cl_bitselect(T a, T b, T c) {\n"
    "  typedef typename _cl_bits<T>::t U; U r = (_cl_as<U>(a) & ~_cl_as<U>(c)) | (_cl_as<U>(b) & _cl_as<U>(c)); return _cl_as<T>(r); }\n"
    "_CL_V3(_cl_bitselect)\n"
    "template<class T, class C, typename _cl_sc<T>::ok * = nullptr> _CLD T _cl_select(T a, T b, C c) { return c ? b : a; }\n"
    "template<class T, int N, class C> _CLD _clv<T, N> _cl_select(const _clv<T, N> &a, const _clv<T, N> &b, const _clv<C, N> &c) {\n"
    "  _clv<T, N> r; for (int i = 0; i < N; i++) r.s[i] = c.s[i] < 0 ? b.s[i] : a.s[i]; if (N == 3) r.s[3] = T(); return r; }\n"
    "/* conversions: rounding 0 default, 1 rte, 2 rtz, 3 rtp, 4 rtn */\n"
    "template<class D> _CLD D _cl_f2i(double x, int sat) {\n"
    "  if (!sat) return (D)x;\n"
    "  if (x != x) return (D)0;\n"
    "  if (x <= (double)_cl_lim<D>::min()) return _cl_lim<D>::min();\n"
    "  if (x >= (double)_cl_lim<D>::max()) return _cl_lim<D>::max();\n"
    "  return (D)x; }\n"
    "template<class D> _CLD D _cl_f2i(float x, int sat) {\n"
    "  if (!sat) return (D)x;\n"
    "  if (x != x) return (D)0;\n"
    "  if (x <= (float)_cl_lim<D>::min()) return _cl_lim<D>::min();\n"
    "  if (x >= (float)_cl_lim<D>::max()) return _cl_lim<D>::max();\n"
    "  return (D)x; }\n"
    "template<class F> _CLD F _cl_round_mode(F x, int rm) {\n"
    "  return rm == 1 ? _cl_rint(x) : rm == 3 ? _cl_ceil(x) : rm == 4 ? _cl_floor(x) : _cl_trunc(x); }\n"
    "template<class D, int SAT, int RM, class S> _CLD D _cl_cvt1(S x) {\n"
    "  if constexpr (sizeof(D) == 0) return D();\n"
    "  else if constexpr ((D)0.5 != (D)0) { /* to floating */\n"
    "    if constexpr ((S)0.5 != (S)0) { /* floating -> floating */\n"
    "      if constexpr (sizeof(D) < sizeof(S)) {\n"
    "        return RM == 2 ? (D)__double2float_rz((double)x) : RM == 3 ? (D)__double2float_ru((double)x) : RM == 4 ? (D)__double2float_rd((double)x) : (D)x;\n"
    "      } else return (D)x;\n"
    "    } else if constexpr (sizeof(D) == 4) {\n"
    "      if constexpr (sizeof(S) == 8) {\n"
    "        if constexpr (_cl_lim<S>::min() == 0) return RM == 2 ? __ull2float_rz(x) : RM == 3 ? __ull2float_ru(x) : RM == 4 ? __ull2float_rd(x) : (D)x;\n"
    "        else return RM == 2 ? __ll2float_rz(x) : RM == 3 ? __ll2float_ru(x) : RM == 4 ? __ll2float_rd(x) : (D)x;\n"
    "      } else if constexpr (sizeof(S) == 4) {\n"
    "        if constexpr (_cl_lim<S>::min() == 0) return RM == 2 ? __uint2float_rz(x) : RM == 3 ? __uint2float_ru(x) : RM == 4 ? __uint2float_rd(x) : (D)x;\n"
    "        else return RM == 2 ? __int2float_rz(x) : RM == 3 ? __int2float_ru(x) : RM == 4 ? __int2float_rd(x) : (D)x;\n"
    "      } else return (D)x;\n"
    "    } else {\n"
    "      if constexpr (sizeof(S) == 8) {\n"
    "        if constexpr (_cl_lim<S>::min() == 0) return RM == 2 ? __ull2double_rz(x) : RM == 3 ? __ull2double_ru(x) : RM == 4 ? __ull2double_rd(x) : (D)x;\n"
    "        else return RM == 2 ? __ll2double_rz(x) : RM == 3 ? __ll2double_ru(x) : RM == 4 ? __ll2double_rd(x) : (D)x;\n"
    "      } else return (D)x;\n"
    "    }\n"
    "  } else if constexpr ((S)0.5 != (S)0) { /* floating -> integer */\n"
    "    return _cl_f2i<D>(_cl_round_mode(x, RM), SAT);\n"
    "  } else { /* integer -> integer */\n"
    "    if (!SAT) return (D)x;\n"
    "    if (_cl_signed<S>() && x < (S)0) {\n"
    "      if (!_cl_signed<D>()) return (D)0;\n"
    "      return (long long)x < (long long)_cl_lim<D>::min() ? _cl_lim<D>::min() : (D)x;\n"
    "    }\n"
    "    return (unsigned long long)x > (unsigned long long)_cl_lim<D>::max() ? _cl_lim<D>::max() : (D)x;\n"
    "  }\n"
    "}\n"
    "template<> _CLD bool _cl_cvt1<bool, 0, 0, bool>(bool x) { return x; }\n"
    "template<class D, int SAT, int RM, class S, typename _cl_sc<S>::ok * = nullptr> _CLD D _cl_convert(const S &x) { return _cl_cvt1<D, SAT, RM>(x); }\n"
    "template<class D, int SAT, int RM, class S, int N> _CLD _clv<D, N> _cl_convert(const _clv<S, N> &x) {\n"
    "  _clv<D, N> r; for (int i = 0; i < N; i++) r.s[i] = _cl_cvt1<D, SAT, RM>(x.s[i]); if (N == 3) r.s[3] = D(); return r; }\n"
    "/* vloadN / vstoreN */\n"
    "template<int N, class T> _CLD _clv<T, N> _cl_vload(ullong o, const T *p) {\n"
    "  _clv<T, N> r; for (int i = 0; i < N; i++) r.s[i] = p[o * N + i]; if (N == 3) r.s[3] = T(); return r; }\n"
    "template<int N, class T> _CLD _clv<T, N> _cl_vload(ullong o, const volatile T *p) {\n"
    "  _clv<T, N> r; for (int i = 0; i < N; i++) r.s[i] = p[o * N + i]; if (N == 3) r.s[3] = T(); return r; }\n"
    "template<class T, int N, class P> _CLD void _cl_vstore(const _clv<T, N> &v, ullong o, P *p) { for (int i = 0; i < N; i++) p[o * N + i] = v.s[i]; }\n"
    "/* atomics */\n"
    "template<class T> _CLD T *_cl_nv(volatile T *p) { return const_cast<T *>(p); }\n"
    "template<class T> _CLD T *_cl_nv(T *p) { return p; }\n"
    "/* the language's atomics are on int and uint (atomic_xchg also on float) */\n"
    "#define _CL_AT(name, fn) _CLD int name(int *p, int v) { return fn(p, v); } _CLD uint name(uint *p, uint v) { return fn(p, v); }\n"
    "_CL_AT(_cl_atomic_add, atomicAdd) _CL_AT(_cl_atomic_sub, atomicSub) _CL_AT(_cl_atomic_xchg, atomicExch)\n"
    "_CL_AT(_cl_atomic_min, atomicMin) _CL_AT(_cl_atomic_max, atomicMax)\n"
    "_CL_AT(_cl_atomic_and, atomicAnd) _CL_AT(_cl_atomic_or, atomicOr) _CL_AT(_cl_atomic_xor, atomicXor)\n"
    "#undef _CL_AT\n"
    "_CLD float _cl_atomic_xchg(float *p, float v) { return atomicExch(p, v); }\n"
    "_CLD int _cl_atomic_cmpxchg(int *p, int c, int v) { return atomicCAS(p, c, v); }\n"
    "_CLD uint _cl_atomic_cmpxchg(uint *p, uint c, uint v) { return atomicCAS(p, c, v); }\n"
    "template<class T> _CLD T _cl_atomic_inc(T *p) { return _cl_atomic_add(p, (T)1); }\n"
    "template<class T> _CLD T _cl_atomic_dec(T *p) { return _cl_atomic_sub(p, (T)1); }\n"
    "/* work-items: the launch's hidden last parameter (see kernels/cuda_abi.h) */\n"
    "struct _agpu_launch { uint group_offset[3]; uint work_dim; uint num_groups[3]; uint reserved; };\n"
    "_CLD ullong _cl_local_id(uint d) { return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : d == 2 ? threadIdx.z : 0; }\n"
    "_CLD ullong _cl_local_size(uint d) { return d == 0 ? blockDim.x : d == 1 ? blockDim.y : d == 2 ? blockDim.z : 1; }\n"
    "_CLD ullong _cl_group_id(const _agpu_launch &L, uint d) {\n"
    "  return d == 0 ? (ullong)blockIdx.x + L.group_offset[0] : d == 1 ? (ullong)blockIdx.y + L.group_offset[1] : d == 2 ? (ullong)blockIdx.z + L.group_offset[2] : 0; }\n"
    "_CLD ullong _cl_num_groups(const _agpu_launch &L, uint d) { return d < 3 ? (ullong)L.num_groups[d] : 1; }\n"
    "_CLD ullong _cl_global_id(const _agpu_launch &L, uint d) { return _cl_group_id(L, d) * _cl_local_size(d) + _cl_local_id(d); }\n"
    "_CLD ullong _cl_global_size(const _agpu_launch &L, uint d) { return _cl_num_groups(L, d) * _cl_local_size(d); }\n"
    "_CLD uint _cl_work_dim(const _agpu_launch &L) { return L.work_dim; }\n"
    "_CLD ullong _cl_global_offset(uint) { return 0; }\n"
    "extern __shared__ __attribute__((aligned(16))) unsigned char _cl_dynamic_shared[];\n"
    "/* end of prelude */\n"
    "\n";

/* ------------------------------------------------------------------ */

typedef struct cuda_emitter {
  kl_context *ctx;
  const kl_program *program;
  klg_buf out;
  bool hip;
  bool failed;
  const kl_function *function; /* being emitted */
  const char *last_failure;
} cuda_emitter;

static const char *const cuda_reserved[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "catch", "char16_t",
    "char32_t", "class", "compl", "concept", "consteval", "constexpr", "constinit", "const_cast",
    "co_await", "co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export",
    "false", "friend", "inline", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "reinterpret_cast",
    "requires", "static_assert", "static_cast", "template", "this", "thread_local", "throw", "true",
    "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq", "threadIdx",
    "blockIdx", "blockDim", "gridDim", "warpSize", "uchar", "ushort", "uint", "llong", "ullong",
    "float1", "float2", "float3", "float4", "int2", "int3", "int4", "uint2", "uint3", "uint4",
    "double2", "double3", "double4", "dim3", "std", "min", "max", "abs", "signbit", "isnan",
    "isinf", "isfinite", "memcpy", "memset", "malloc", "free", "printf", "assert", "atomicAdd",
    "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicAnd", "atomicOr", "atomicXor",
    "atomicCAS", "atomicInc", "atomicDec", "main", "sin", "cos", "exp", "log", "sqrt", "pow",
    "fabs", "floor", "ceil", "fmin", "fmax", "rint", "round", "trunc", "tan", "size_t", NULL};

static void cuda_fail(cuda_emitter *e, kl_location at, const char *what) {
  if (e->failed && e->last_failure && strcmp(e->last_failure, what) == 0) return; /* once is enough */
  e->last_failure = what;
  kl_error(e->ctx, at, "the %s target does not support %s", e->hip ? "HIP" : "CUDA", what);
  e->failed = true;
}

static const char *cuda_name(cuda_emitter *e, const char *name) {
  return klg_ident(e->ctx, name, cuda_reserved, false);
}

static const char *cuda_scalar(cuda_emitter *e, const kl_type *t, kl_location at) {
  switch (t->kind) {
    case KL_TYPE_VOID: return "void";
    case KL_TYPE_BOOL: return "bool";
    case KL_TYPE_CHAR: return "signed char";
    case KL_TYPE_UCHAR: return "uchar";
    case KL_TYPE_SHORT: return "short";
    case KL_TYPE_USHORT: return "ushort";
    case KL_TYPE_INT: return "int";
    case KL_TYPE_UINT: return "uint";
    case KL_TYPE_LONG: case KL_TYPE_PTRDIFF_T: return "llong";
    case KL_TYPE_ULONG: case KL_TYPE_SIZE_T: return "ullong";
    case KL_TYPE_FLOAT: return "float";
    case KL_TYPE_DOUBLE: return "double";
    case KL_TYPE_HALF: cuda_fail(e, at, "half arithmetic"); return "float";
    default: return "int";
  }
}

/* A type without declarator parts (arrays are handled by cuda_decl). */
static const char *cuda_type(cuda_emitter *e, const kl_type *t, kl_location at) {
  if (!t) return "void";
  switch (t->kind) {
    case KL_TYPE_VECTOR:
      return kl_format(e->ctx, "_clv<%s, %d>", cuda_scalar(e, t->element, at), t->length);
    case KL_TYPE_STRUCT: return klg_struct_name(e->ctx, e->program, t);
    case KL_TYPE_POINTER: {
      const kl_type *p = t->element;
      const char *q = "";
      if (p->qualifiers & KL_QUALIFIER_CONST) q = kl_format(e->ctx, "%sconst ", q);
      if (p->qualifiers & KL_QUALIFIER_VOLATILE) q = kl_format(e->ctx, "%svolatile ", q);
      if (p->kind == KL_TYPE_ARRAY || p->kind == KL_TYPE_POINTER || p->kind == KL_TYPE_FUNCTION) {
        cuda_fail(e, at, "pointers to pointers, arrays or functions");
        return "void*";
      }
      return kl_format(e->ctx, "%s%s*%s", q, cuda_type(e, p, at),
                       (t->qualifiers & KL_QUALIFIER_RESTRICT) ? " __restrict__" : "");
    }
    case KL_TYPE_ARRAY: return cuda_type(e, t->element, at);
    case KL_TYPE_FUNCTION: cuda_fail(e, at, "function types"); return "void";
    default: return cuda_scalar(e, t, at);
  }
}

static const char *cuda_decl(cuda_emitter *e, const kl_type *t, const char *name, kl_location at) {
  const char *dims = "";
  while (t->kind == KL_TYPE_ARRAY) {
    dims = kl_format(e->ctx, "%s[%d]", dims, t->length);
    t = t->element;
  }
  const char *cv = (t->kind != KL_TYPE_POINTER && (t->qualifiers & KL_QUALIFIER_CONST)) ? "const " : "";
  return kl_format(e->ctx, "%s%s %s%s", cv, cuda_type(e, t, at), name, dims);
}

static void cuda_expr(cuda_emitter *e, const kl_node *n);

static void cuda_int_literal(cuda_emitter *e, const kl_type *t, uint64_t v) {
  klg_buf *o = &e->out;
  switch (t->kind) {
    case KL_TYPE_BOOL: klg_puts(o, v ? "true" : "false"); return;
    case KL_TYPE_INT:
      if ((int32_t)v == INT32_MIN) klg_puts(o, "(-2147483647 - 1)");
      else klg_printf(o, (int32_t)v < 0 ? "(%d)" : "%d", (int32_t)v);
      return;
    case KL_TYPE_UINT: klg_printf(o, "%uu", (uint32_t)v); return;
    case KL_TYPE_LONG: case KL_TYPE_PTRDIFF_T:
      if ((int64_t)v == INT64_MIN) klg_puts(o, "(-9223372036854775807ll - 1)");
      else klg_printf(o, (int64_t)v < 0 ? "(%lldll)" : "%lldll", (long long)(int64_t)v);
      return;
    case KL_TYPE_ULONG: case KL_TYPE_SIZE_T: klg_printf(o, "%lluull", (unsigned long long)v); return;
    case KL_TYPE_FLOAT: case KL_TYPE_DOUBLE:
      klg_printf(o, "((%s)%lld)", cuda_scalar(e, t, (kl_location){0}), (long long)(int64_t)v);
      return;
    default:
      klg_printf(o, "((%s)%lld)", cuda_scalar(e, t, (kl_location){0}), (long long)(int64_t)v);
      return;
  }
}

static void cuda_float_literal(cuda_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  double v = n->float_value;
  bool is_float = n->type->kind != KL_TYPE_DOUBLE;
  if (n->type->kind == KL_TYPE_HALF) {
    cuda_fail(e, n->location, "half literals");
    return;
  }
  if (v != v) {
    klg_puts(o, is_float ? "__int_as_float(0x7fc00000)" : "__longlong_as_double(0x7ff8000000000000ll)");
  } else if (isinf(v)) {
    if (is_float) klg_puts(o, v > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float((int)0xff800000u)");
    else klg_puts(o, v > 0 ? "__longlong_as_double(0x7ff0000000000000ll)" : "__longlong_as_double((llong)0xfff0000000000000ull)");
  } else if (is_float) {
    klg_printf(o, "%af", (double)(float)v);
  } else {
    klg_printf(o, "%a", v);
  }
}

/* The launch-info argument a call needs: every helper takes it last. */
static const char *cuda_launch_arg(void) {
  return "_cl_L";
}

static void cuda_args(cuda_emitter *e, const kl_node *args) {
  for (const kl_node *a = args; a; a = a->next) {
    cuda_expr(e, a);
    if (a->next) klg_puts(&e->out, ", ");
  }
}

static bool cuda_fence_is_local_only(const kl_node *flags) {
  flags = klg_strip_convert(flags);
  return flags && flags->kind == KL_EXPR_INT_LITERAL && flags->int_value == 1;
}

static void cuda_builtin(cuda_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  const kl_builtin *b = n->builtin;
  const kl_node *a0 = n->args, *a1 = a0 ? a0->next : NULL;
  switch (b->id) {
    case KL_BUILTIN_GET_WORK_DIM: klg_printf(o, "_cl_work_dim(%s)", cuda_launch_arg()); return;
    case KL_BUILTIN_GET_GLOBAL_ID:
    case KL_BUILTIN_GET_GLOBAL_SIZE:
    case KL_BUILTIN_GET_GROUP_ID:
    case KL_BUILTIN_GET_NUM_GROUPS: {
      const char *f = b->id == KL_BUILTIN_GET_GLOBAL_ID     ? "_cl_global_id"
                      : b->id == KL_BUILTIN_GET_GLOBAL_SIZE ? "_cl_global_size"
                      : b->id == KL_BUILTIN_GET_GROUP_ID    ? "_cl_group_id"
                                                            : "_cl_num_groups";
      klg_printf(o, "%s(%s, (uint)(", f, cuda_launch_arg());
      cuda_expr(e, a0);
      klg_puts(o, "))");
      return;
    }
    case KL_BUILTIN_GET_LOCAL_ID:
    case KL_BUILTIN_GET_LOCAL_SIZE:
    case KL_BUILTIN_GET_GLOBAL_OFFSET: {
      const char *f = b->id == KL_BUILTIN_GET_LOCAL_ID     ? "_cl_local_id"
                      : b->id == KL_BUILTIN_GET_LOCAL_SIZE ? "_cl_local_size"
                                                           : "_cl_global_offset";
      klg_printf(o, "%s((uint)(", f);
      cuda_expr(e, a0);
      klg_puts(o, "))");
      return;
    }
    case KL_BUILTIN_BARRIER: klg_puts(o, "__syncthreads()"); return;
    case KL_BUILTIN_MEM_FENCE:
    case KL_BUILTIN_READ_MEM_FENCE:
    case KL_BUILTIN_WRITE_MEM_FENCE:
      klg_puts(o, cuda_fence_is_local_only(a0) ? "__threadfence_block()" : "__threadfence()");
      return;
    case KL_BUILTIN_ATOMIC_ADD: case KL_BUILTIN_ATOMIC_SUB: case KL_BUILTIN_ATOMIC_XCHG:
    case KL_BUILTIN_ATOMIC_INC: case KL_BUILTIN_ATOMIC_DEC: case KL_BUILTIN_ATOMIC_CMPXCHG:
    case KL_BUILTIN_ATOMIC_MIN: case KL_BUILTIN_ATOMIC_MAX: case KL_BUILTIN_ATOMIC_AND:
    case KL_BUILTIN_ATOMIC_OR: case KL_BUILTIN_ATOMIC_XOR:
      klg_printf(o, "_cl_%s(_cl_nv(", b->canonical);
      cuda_expr(e, a0);
      klg_puts(o, ")");
      for (const kl_node *a = a1; a; a = a->next) {
        klg_puts(o, ", ");
        cuda_expr(e, a);
      }
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_CONVERT: {
      const kl_type *to = kl_type_scalar_of(n->type);
      klg_printf(o, "_cl_convert<%s, %d, %d>(", cuda_scalar(e, to, n->location), b->saturate ? 1 : 0,
                 (int)b->rounding);
      cuda_expr(e, a0);
      klg_puts(o, ")");
      return;
    }
    case KL_BUILTIN_AS:
      klg_printf(o, "_cl_as<%s>(", cuda_type(e, n->type, n->location));
      cuda_expr(e, a0);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_VLOAD:
      if (kl_type_scalar_of(n->type)->kind == KL_TYPE_HALF) {
        cuda_fail(e, n->location, "half vloads");
        return;
      }
      klg_printf(o, "_cl_vload<%d>(", n->type->length);
      cuda_args(e, a0);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_VSTORE:
      klg_puts(o, "_cl_vstore(");
      cuda_args(e, a0);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_FAST_LENGTH: klg_puts(o, "_cl_length("); break;
    case KL_BUILTIN_FAST_DISTANCE: klg_puts(o, "_cl_distance("); break;
    case KL_BUILTIN_FAST_NORMALIZE: klg_puts(o, "_cl_normalize("); break;
    case KL_BUILTIN_SIN: case KL_BUILTIN_COS: case KL_BUILTIN_EXP: case KL_BUILTIN_LOG:
    case KL_BUILTIN_DIVIDE:
      if (n->spelling && strncmp(n->spelling, "native_", 7) == 0) {
        klg_printf(o, "_cl_fast_%s(", b->canonical);
        break;
      }
      klg_printf(o, "_cl_%s(", b->canonical);
      break;
    default:
      if (kl_type_scalar_of(n->type)->kind == KL_TYPE_HALF) {
        cuda_fail(e, n->location, "half arithmetic");
        return;
      }
      klg_printf(o, "_cl_%s(", b->canonical);
      break;
  }
  cuda_args(e, a0);
  klg_puts(o, ")");
}

static void cuda_swizzle_indices(cuda_emitter *e, const int *c, int count) {
  for (int i = 0; i < count; i++) klg_printf(&e->out, i ? ", %d" : "%d", c[i]);
}

/* lvalue: the swizzle is assigned to (a reference proxy for several components). */
static void cuda_swizzle(cuda_emitter *e, const kl_node *n, bool lvalue) {
  int c[16], count;
  const kl_node *base = klg_fold_swizzle(n, c, &count);
  if (count == 1) {
    klg_puts(&e->out, "(");
    cuda_expr(e, base);
    klg_printf(&e->out, ").s[%d]", c[0]);
    return;
  }
  klg_printf(&e->out, lvalue ? "_cl_swzr<" : "_cl_swz<");
  cuda_swizzle_indices(e, c, count);
  klg_puts(&e->out, ">(");
  cuda_expr(e, base);
  klg_puts(&e->out, ")");
}

static void cuda_lvalue(cuda_emitter *e, const kl_node *n) {
  if (n->kind == KL_EXPR_SWIZZLE) cuda_swizzle(e, n, true);
  else cuda_expr(e, n);
}

/* A scalar conversion of the emitted expression to `to`. */
static void cuda_convert_to(cuda_emitter *e, const kl_type *to, const kl_node *from, kl_location at) {
  klg_buf *o = &e->out;
  const kl_type *ft = from->type;
  if (to->kind == KL_TYPE_VECTOR) {
    if (klg_is_vector(ft)) {
      if (kl_type_equal(kl_type_scalar_of(ft), to->element)) {
        cuda_expr(e, from);
        return;
      }
      klg_printf(o, "_cl_convert<%s, 0, 0>(", cuda_scalar(e, to->element, at));
      cuda_expr(e, from);
      klg_puts(o, ")");
      return;
    }
    klg_printf(o, "_cl_splat<%s, %d>((%s)(", cuda_scalar(e, to->element, at), to->length,
               cuda_scalar(e, to->element, at));
    cuda_expr(e, from);
    klg_puts(o, "))");
    return;
  }
  if (to->kind == KL_TYPE_STRUCT || to->kind == KL_TYPE_VOID || kl_type_equal(to, ft)) {
    if (to->kind == KL_TYPE_VOID) klg_puts(o, "(void)");
    cuda_expr(e, from);
    return;
  }
  klg_printf(o, "((%s)(", cuda_type(e, to, at));
  cuda_expr(e, from);
  klg_puts(o, "))");
}

static void cuda_expr(cuda_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  if (!n) return;
  switch (n->kind) {
    case KL_EXPR_INT_LITERAL: cuda_int_literal(e, n->type, n->int_value); return;
    case KL_EXPR_FLOAT_LITERAL: cuda_float_literal(e, n); return;
    case KL_EXPR_VARIABLE: klg_puts(o, cuda_name(e, n->variable->name)); return;
    case KL_EXPR_VECTOR_LITERAL: {
      const kl_type *t = n->type;
      const char *el = cuda_scalar(e, t->element, n->location);
      if (n->arg_count == 1 && !klg_is_vector(n->args->type)) {
        klg_printf(o, "_cl_splat<%s, %d>((%s)(", el, t->length, el);
        cuda_expr(e, n->args);
        klg_puts(o, "))");
        return;
      }
      klg_printf(o, "_cl_make<%s, %d>(", el, t->length);
      for (const kl_node *a = n->args; a; a = a->next) {
        if (!klg_is_vector(a->type)) {
          klg_printf(o, "(%s)(", el);
          cuda_expr(e, a);
          klg_puts(o, ")");
        } else {
          cuda_expr(e, a);
        }
        if (a->next) klg_puts(o, ", ");
      }
      klg_puts(o, ")");
      return;
    }
    case KL_EXPR_UNARY:
      switch (n->op) {
        case KL_OP_POST_INCREMENT:
        case KL_OP_POST_DECREMENT:
          klg_puts(o, "(");
          cuda_lvalue(e, n->lhs);
          klg_puts(o, n->op == KL_OP_POST_INCREMENT ? "++)" : "--)");
          return;
        case KL_OP_PRE_INCREMENT:
        case KL_OP_PRE_DECREMENT:
          klg_puts(o, n->op == KL_OP_PRE_INCREMENT ? "(++" : "(--");
          cuda_lvalue(e, n->lhs);
          klg_puts(o, ")");
          return;
        default: break;
      }
      klg_puts(o, n->op == KL_OP_NEGATE        ? "(-"
                  : n->op == KL_OP_PLUS        ? "(+"
                  : n->op == KL_OP_LOGICAL_NOT ? "(!"
                  : n->op == KL_OP_BIT_NOT     ? "(~"
                  : n->op == KL_OP_DEREFERENCE ? "(*"
                                               : "(&");
      cuda_expr(e, n->lhs);
      klg_puts(o, ")");
      return;
    case KL_EXPR_BINARY:
      if ((n->op == KL_OP_SHL || n->op == KL_OP_SHR) && !klg_is_vector(n->type)) {
        /* OpenCL masks the count to the width of the (promoted) left operand */
        klg_puts(o, "(");
        cuda_expr(e, n->lhs);
        klg_printf(o, " %s ((", kl_operator_text(n->op));
        cuda_expr(e, n->rhs);
        klg_printf(o, ") & %d))", klg_bits(kl_type_scalar_of(n->type)) - 1);
        return;
      }
      klg_puts(o, "(");
      cuda_expr(e, n->lhs);
      klg_printf(o, " %s ", kl_operator_text(n->op));
      cuda_expr(e, n->rhs);
      klg_puts(o, ")");
      return;
    case KL_EXPR_ASSIGN:
      klg_puts(o, "(");
      cuda_lvalue(e, n->lhs);
      if (n->op == KL_OP_NONE) {
        klg_puts(o, " = ");
        cuda_expr(e, n->rhs);
      } else if ((n->op == KL_OP_SHL || n->op == KL_OP_SHR) && !klg_is_vector(n->lhs->type)) {
        const kl_type *promoted = kl_type_scalar_of(n->lhs->type);
        int bits = klg_bits(promoted) < 32 ? 32 : klg_bits(promoted);
        klg_printf(o, " %s= ((", kl_operator_text(n->op));
        cuda_expr(e, n->rhs);
        klg_printf(o, ") & %d)", bits - 1);
      } else {
        klg_printf(o, " %s= ", kl_operator_text(n->op));
        cuda_expr(e, n->rhs);
      }
      klg_puts(o, ")");
      return;
    case KL_EXPR_CONDITIONAL:
      if (klg_is_vector(n->condition->type)) {
        klg_puts(o, "_cl_vcond(");
        cuda_expr(e, n->condition);
        klg_puts(o, ", ");
        cuda_expr(e, n->then);
        klg_puts(o, ", ");
        cuda_expr(e, n->otherwise);
        klg_puts(o, ")");
        return;
      }
      klg_puts(o, "(");
      cuda_expr(e, n->condition);
      klg_puts(o, " ? ");
      cuda_expr(e, n->then);
      klg_puts(o, " : ");
      cuda_expr(e, n->otherwise);
      klg_puts(o, ")");
      return;
    case KL_EXPR_COMMA:
      klg_puts(o, "(");
      cuda_expr(e, n->lhs);
      klg_puts(o, ", ");
      cuda_expr(e, n->rhs);
      klg_puts(o, ")");
      return;
    case KL_EXPR_CALL:
      klg_printf(o, "%s(", cuda_name(e, n->function->name));
      cuda_args(e, n->args);
      klg_printf(o, "%s%s)", n->args ? ", " : "", cuda_launch_arg());
      return;
    case KL_EXPR_BUILTIN: cuda_builtin(e, n); return;
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT: cuda_convert_to(e, n->type, n->lhs, n->location); return;
    case KL_EXPR_INDEX:
      klg_puts(o, "(");
      cuda_expr(e, n->lhs);
      if (klg_is_vector(n->lhs->type)) klg_puts(o, ").s[");
      else klg_puts(o, ")[");
      cuda_expr(e, n->rhs);
      klg_puts(o, "]");
      return;
    case KL_EXPR_MEMBER:
      klg_puts(o, "(");
      cuda_expr(e, n->lhs);
      klg_printf(o, ")%s%s", n->is_arrow ? "->" : ".", n->member->name);
      return;
    case KL_EXPR_SWIZZLE: cuda_swizzle(e, n, false); return;
    default: cuda_fail(e, n->location, "this expression"); return;
  }
}


/* A vector literal as an aggregate initializer (constant initialisation). */
static void cuda_const_vector_parts(cuda_emitter *e, const kl_node *n, int *count) {
  n = klg_strip_convert(n);
  if (n->kind == KL_EXPR_VECTOR_LITERAL) {
    if (n->arg_count == 1 && !klg_is_vector(n->args->type)) {
      for (int i = 0; i < n->type->length; i++) cuda_const_vector_parts(e, n->args, count);
      return;
    }
    for (const kl_node *a = n->args; a; a = a->next) cuda_const_vector_parts(e, a, count);
    return;
  }
  if (klg_is_vector(n->type)) {
    cuda_fail(e, n->location, "this vector in a constant initializer");
    return;
  }
  klg_puts(&e->out, (*count)++ ? ", " : "");
  cuda_expr(e, n);
}

static void cuda_initializer(cuda_emitter *e, const kl_node *init);

static void cuda_constant_initializer(cuda_emitter *e, const kl_type *t, const kl_node *init) {
  const kl_node *s = klg_strip_convert(init);
  if (klg_is_vector(t) && s->kind == KL_EXPR_VECTOR_LITERAL) {
    int count = 0;
    klg_puts(&e->out, "{{");
    cuda_const_vector_parts(e, s, &count);
    klg_puts(&e->out, "}}");
    return;
  }
  if (init->kind == KL_EXPR_INIT_LIST) {
    klg_puts(&e->out, "{");
    const kl_member *m = t->kind == KL_TYPE_STRUCT ? t->members : NULL;
    int si = t->kind == KL_TYPE_STRUCT ? klg_struct_index(e->program, t) : -1;
    if (si >= 0) m = e->program->structs[si]->members;
    for (const kl_node *a = init->args; a; a = a->next) {
      const kl_type *et = t->kind == KL_TYPE_ARRAY ? t->element : m ? m->type : a->type;
      cuda_constant_initializer(e, et, a);
      if (m) m = m->next;
      if (a->next) klg_puts(&e->out, ", ");
    }
    klg_puts(&e->out, "}");
    return;
  }
  cuda_expr(e, init);
}

static void cuda_initializer(cuda_emitter *e, const kl_node *init) {
  if (init->kind == KL_EXPR_INIT_LIST) {
    klg_puts(&e->out, "{");
    for (const kl_node *a = init->args; a; a = a->next) {
      cuda_initializer(e, a);
      if (a->next) klg_puts(&e->out, ", ");
    }
    klg_puts(&e->out, "}");
    return;
  }
  cuda_expr(e, init);
}

static void cuda_declaration(cuda_emitter *e, const kl_variable *v) {
  klg_buf *o = &e->out;
  const char *name = cuda_name(e, v->name);
  if (v->space == KL_SPACE_LOCAL) {
    klg_printf(o, "__shared__ %s", cuda_decl(e, v->type, name, v->location));
  } else {
    klg_puts(o, cuda_decl(e, v->type, name, v->location));
  }
  if (v->initializer) {
    klg_puts(o, " = ");
    cuda_initializer(e, v->initializer);
  }
}

static void cuda_expression_callback(void *e, const kl_node *n) { cuda_expr(e, n); }
static void cuda_declaration_callback(void *e, const kl_variable *v) { cuda_declaration(e, v); }
static void cuda_fail_callback(void *e, kl_location at, const char *what) { cuda_fail(e, at, what); }

static void cuda_stmt(cuda_emitter *e, const kl_node *n, int depth) {
  const klg_c_printer printer = {&e->out, e, cuda_expression_callback, cuda_declaration_callback,
                                 cuda_fail_callback, "ll"};
  klg_c_statement(&printer, n, depth);
}

static void cuda_struct(cuda_emitter *e, const kl_type *t) {
  klg_buf *o = &e->out;
  klg_printf(o, "struct %s {\n", klg_struct_name(e->ctx, e->program, t));
  for (const kl_member *m = t->members; m; m = m->next)
    klg_printf(o, "  %s;\n", cuda_decl(e, m->type, m->name, m->location));
  klg_printf(o, "};\nstatic_assert(sizeof(%s) == %d, \"struct layout\");\n",
             klg_struct_name(e->ctx, e->program, t), t->size);
}

static void cuda_signature(cuda_emitter *e, const kl_function *f) {
  klg_buf *o = &e->out;
  const char *name = cuda_name(e, f->name);
  if (f->is_kernel) {
    klg_puts(o, "extern \"C\" __global__ ");
    if (f->has_required_work_group_size) {
      uint64_t threads = (uint64_t)f->required_work_group_size[0] * f->required_work_group_size[1] *
                         f->required_work_group_size[2];
      if (threads > 0 && threads <= 1024) klg_printf(o, "__launch_bounds__(%u) ", (unsigned)threads);
    }
    klg_printf(o, "void %s(", name);
  } else {
    klg_printf(o, "static __device__ %s %s(", cuda_type(e, f->return_type, f->location), name);
    if (f->return_type && f->return_type->kind == KL_TYPE_ARRAY) cuda_fail(e, f->location, "functions returning arrays");
  }
  for (const kl_variable *p = f->params; p; p = p->next) {
    const char *pname = cuda_name(e, p->name);
    if (f->is_kernel && klg_is_pointer(p->type) && p->type->pointee_space == KL_SPACE_LOCAL)
      klg_printf(o, "uint _cl_loff_%s", pname);
    else
      klg_puts(o, cuda_decl(e, p->type, pname, p->location));
    klg_puts(o, ", ");
  }
  klg_puts(o, f->is_kernel ? "const _agpu_launch _cl_L)" : "const _agpu_launch &_cl_L)");
}

static void cuda_function(cuda_emitter *e, const kl_function *f) {
  klg_buf *o = &e->out;
  e->function = f;
  cuda_signature(e, f);
  klg_puts(o, " {\n");
  if (f->is_kernel) {
    for (const kl_variable *p = f->params; p; p = p->next) {
      if (!(klg_is_pointer(p->type) && p->type->pointee_space == KL_SPACE_LOCAL)) continue;
      const char *pname = cuda_name(e, p->name);
      const char *t = cuda_type(e, p->type, p->location);
      klg_printf(o, "  %s %s = (%s)(_cl_dynamic_shared + _cl_loff_%s);\n", t, pname, t, pname);
    }
  }
  if (f->body && f->body->kind == KL_STMT_COMPOUND) {
    for (const kl_node *s = f->body->body; s; s = s->next) cuda_stmt(e, s, 1);
  } else if (f->body) {
    cuda_stmt(e, f->body, 1);
  }
  klg_puts(o, "}\n\n");
}

const char *kl_emit_cuda(kl_context *ctx, const kl_program *program, bool hip) {
  cuda_emitter e = {.ctx = ctx, .program = program, .hip = hip};
  klg_init(&e.out, ctx);
  klg_puts(&e.out, hip ? "/* HIP C++ for hiprtc, translated by anygpu */\n"
                       : "/* CUDA C++ for NVRTC, translated by anygpu */\n");
  klg_puts(&e.out, cuda_prelude);
  for (int i = 0; i < program->struct_count; i++) cuda_struct(&e, program->structs[i]);
  for (const kl_variable *v = program->constants; v; v = v->next) {
    klg_printf(&e.out, "__constant__ %s", cuda_decl(&e, v->type, cuda_name(&e, v->name), v->location));
    if (v->initializer) {
      klg_puts(&e.out, " = ");
      cuda_constant_initializer(&e, v->type, v->initializer);
    }
    klg_puts(&e.out, ";\n");
  }
  /* prototypes, so that helpers may be called before their definition */
  for (const kl_function *f = program->functions; f; f = f->next) {
    if (f->is_kernel || !f->body) continue;
    cuda_signature(&e, f);
    klg_puts(&e.out, ";\n");
  }
  klg_puts(&e.out, "\n");
  for (const kl_function *f = program->functions; f; f = f->next)
    if (f->body) cuda_function(&e, f);
  if (e.failed) return NULL;
  return klg_text(&e.out);
}
