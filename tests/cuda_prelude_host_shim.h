// SPDX-License-Identifier: Apache-2.0
/* Lets the host C++ compiler (g++ 12 or clang, x86-64) compile the HIP
 * variant of the CUDA/HIP prelude (kernels/cuda_prelude.c), so that
 * cuda_prelude_host_check.cpp can run its conversions and half arithmetic
 * against exact references. The device keywords become nothing; the
 * intrinsics the prelude names get host versions. The directed-rounding
 * intrinsics round to nearest, as ROCm 5's do: the HIP prelude must not
 * rely on them. */
#include <cmath>
#include <cstdint>
#include <cstring>

using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

#define __device__
#define __forceinline__ inline
#define __global__
#define __shared__
#define __constant__

static inline unsigned __float_as_uint(float x) {
  unsigned u;
  memcpy(&u, &x, 4);
  return u;
}
static inline float __uint_as_float(unsigned u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}
static inline float __int_as_float(int u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}
static inline long long __double_as_longlong(double x) {
  long long u;
  memcpy(&u, &x, 8);
  return u;
}
static inline double __longlong_as_double(long long u) {
  double x;
  memcpy(&x, &u, 8);
  return x;
}
static inline float __fdividef(float x, float y) {
  return x / y;
}
static inline float rsqrtf(float x) {
  return 1.0f / sqrtf(x);
}
static inline double rsqrt(double x) {
  return 1.0 / sqrt(x);
}
static inline float sinpif(float x) {
  return sinf((float)M_PI * x);
}
static inline double sinpi(double x) {
  return sin(M_PI * x);
}
static inline float cospif(float x) {
  return cosf((float)M_PI * x);
}
static inline double cospi(double x) {
  return cos(M_PI * x);
}
static inline int __mulhi(int a, int b) {
  return (int)(((long long)a * b) >> 32);
}
static inline unsigned __umulhi(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a * b) >> 32);
}
static inline long long __mul64hi(long long a, long long b) {
  return (long long)(((__int128)a * b) >> 64);
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline int __clz(int x) {
  return x ? __builtin_clz((unsigned)x) : 32;
}
static inline int __clzll(long long x) {
  return x ? __builtin_clzll((unsigned long long)x) : 64;
}
static inline int __popc(unsigned x) {
  return __builtin_popcount(x);
}
static inline int __popcll(unsigned long long x) {
  return __builtin_popcountll(x);
}

#define SHIM_NEAREST(name, T, R) \
  static inline R name(T x) {    \
    return (R)x;                 \
  }
SHIM_NEAREST(__double2float_rz, double, float)
SHIM_NEAREST(__double2float_ru, double, float) SHIM_NEAREST(__double2float_rd, double, float)
    SHIM_NEAREST(__ull2float_rz, unsigned long long,
                 float) SHIM_NEAREST(__ull2float_ru, unsigned long long,
                                     float) SHIM_NEAREST(__ull2float_rd, unsigned long long, float)
        SHIM_NEAREST(__ll2float_rz, long long, float) SHIM_NEAREST(__ll2float_ru, long long, float)
            SHIM_NEAREST(__ll2float_rd, long long, float)
                SHIM_NEAREST(__uint2float_rz, unsigned, float)
                    SHIM_NEAREST(__uint2float_ru, unsigned, float)
                        SHIM_NEAREST(__uint2float_rd, unsigned, float) SHIM_NEAREST(__int2float_rz,
                                                                                    int, float)
                            SHIM_NEAREST(__int2float_ru, int, float) SHIM_NEAREST(__int2float_rd,
                                                                                  int, float)
                                SHIM_NEAREST(__ull2double_rz, unsigned long long, double)
                                    SHIM_NEAREST(__ull2double_ru, unsigned long long, double)
                                        SHIM_NEAREST(__ull2double_rd, unsigned long long, double)
                                            SHIM_NEAREST(__ll2double_rz, long long, double)
                                                SHIM_NEAREST(__ll2double_ru, long long, double)
                                                    SHIM_NEAREST(__ll2double_rd, long long, double)
#undef SHIM_NEAREST

                                                        struct shim_dim3 {
  unsigned x, y, z;
};
static shim_dim3 threadIdx, blockIdx, blockDim;
static inline void __syncthreads() {}
static inline void __threadfence() {}
static inline void __threadfence_block() {}
template <class T>
T atomicAdd(T *p, T v) {
  T o = *p;
  *p = o + v;
  return o;
}
template <class T>
T atomicSub(T *p, T v) {
  T o = *p;
  *p = o - v;
  return o;
}
template <class T>
T atomicExch(T *p, T v) {
  T o = *p;
  *p = v;
  return o;
}
template <class T>
T atomicMin(T *p, T v) {
  T o = *p;
  *p = v < o ? v : o;
  return o;
}
template <class T>
T atomicMax(T *p, T v) {
  T o = *p;
  *p = v > o ? v : o;
  return o;
}
template <class T>
T atomicAnd(T *p, T v) {
  T o = *p;
  *p = o & v;
  return o;
}
template <class T>
T atomicOr(T *p, T v) {
  T o = *p;
  *p = o | v;
  return o;
}
template <class T>
T atomicXor(T *p, T v) {
  T o = *p;
  *p = o ^ v;
  return o;
}
template <class T>
T atomicCAS(T *p, T c, T v) {
  T o = *p;
  if (o == c) *p = v;
  return o;
}
