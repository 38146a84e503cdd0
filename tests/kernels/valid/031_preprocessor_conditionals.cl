// #if, #elif, #else, #ifdef, #ifndef, defined, arithmetic in #if, macros from
// -D options, __LINE__, __OPENCL_VERSION__ and CL_VERSION_1_2, and an #error
// that is skipped.
// @kernel conditionals
// @global 64
// @local 16
// @options -DMODE=2 -DUSE_OFFSET -DFACTOR=5
// @arg buffer int 64 random -1000 1000
// @arg buffer int 64 output
#if MODE == 1
#define RESULT(x) ((x) + 1)
#elif MODE == 2 && defined(USE_OFFSET)
#define RESULT(x) ((x) * FACTOR + 2)
#else
#define RESULT(x) (x)
#endif

#ifndef FACTOR
#error "FACTOR comes from the options"
#endif

#ifdef NOT_DEFINED
#error "never reached"
#endif

#if defined(__OPENCL_VERSION__) && __OPENCL_VERSION__ >= 120 && defined(CL_VERSION_1_2)
#define VERSION_OK 1
#else
#define VERSION_OK 0
#endif

#if (3 * 4 > 10) && !(1 / 1 - 1) && (0x10 == 16) && (-1 < 0)
#define ARITHMETIC_OK 1
#endif

__kernel void conditionals(__global const int *in, __global int *out) {
  uint i = get_global_id(0);
  int line = __LINE__; /* line 38 of this file */
  out[i] = RESULT(in[i]) + VERSION_OK * 1000 + ARITHMETIC_OK * 10000 + line * 100000;
}
