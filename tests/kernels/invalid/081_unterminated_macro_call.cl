// A macro invocation whose argument list never closes.
// @error 5:12 unterminated call to macro 'ADD'
#define ADD(a, b) ((a) + (b))
__kernel void k(__global int *out) {
  out[0] = ADD(1, 2;
}
