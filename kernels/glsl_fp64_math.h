// SPDX-License-Identifier: Apache-2.0
/* Double-precision math for the GLSL target: GLSL 4.50 (and SPIR-V's
 * GLSL.std.450) has exp, log, pow, sin, atan ... for 16/32-bit floats only.
 * This library holds GLSL source for the double versions of OpenCL C's math
 * builtins, written with what GLSL has for double (arithmetic, fma, floor,
 * trunc, roundEven, sqrt, abs, min/max, isnan/isinf, packDouble2x32 and
 * unpackDouble2x32; no int64). Scalars only: the emitter calls them per
 * component of a vector. docs/kernel-language.md lists the functions and
 * their measured accuracy. No global mutable state. */
#ifndef KL_GLSL_FP64_MATH_H
#define KL_GLSL_FP64_MATH_H

#include <stddef.h>

/* The GLSL name of the double implementation of an OpenCL C math builtin
 * ("exp" gives "kl_exp_f64"), or NULL when the library has none: the builtins
 * GLSL already has for double with OpenCL's meaning (sqrt, rsqrt as
 * inversesqrt, fma, mad, fabs, fmin, fmax, mix, step, smoothstep, sign ...),
 * those the emitter writes exactly with them (copysign, fdim, maxmag, minmag)
 * and the non-math ones. floor, ceil, trunc, rint and round are the
 * library's (kl_f64_floor ...): computed from the bits, unless the text is
 * preceded by `#define KL_F64_SOFT_ROUNDING 0` for a device whose own are
 * exact. The signatures are `double f(double)`, `double f(double, double)`,
 * `double f(double, int)` (ldexp, pown, rootn) and `int f(double)` (ilogb).
 * degrees and radians are here too: GLSL has them for float only. For the
 * builtins with an out-pointer (sincos, frexp, lgamma_r, remquo, modf, fract)
 * this is the function that gives the return value. */
const char *kl_glsl_fp64_function(const char *builtin);

/* For the builtins with an out-pointer, the function that computes what is
 * stored through it, called with the same arguments (sincos: "kl_cos_f64";
 * frexp: "kl_frexp_exp_f64", int; lgamma_r: "kl_lgamma_sign_f64", int;
 * remquo: "kl_remquo_quo_f64", int; modf: "kl_f64_trunc" and fract:
 * "kl_f64_floor"); NULL for every other name. */
const char *kl_glsl_fp64_out_function(const char *builtin);

/* Writes the GLSL source of the functions of `builtins` (OpenCL C names, as
 * above; names the library does not have are ignored) and of everything
 * they use, each defined once, in an order GLSL accepts. Writes at most
 * `capacity` bytes including the terminating NUL (nothing when capacity is
 * 0; out may then be NULL) and returns the length of the whole text, as
 * snprintf does. */
size_t kl_glsl_fp64_source(const char *const *builtins, size_t count, char *out, size_t capacity);

/* The whole library: every function, NUL-terminated. */
const char *kl_glsl_fp64_library(void);

#endif /* KL_GLSL_FP64_MATH_H */
