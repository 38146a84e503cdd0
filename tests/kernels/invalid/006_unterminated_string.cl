// A string literal without its closing quote.
// @error 3:26 unterminated string literal
__constant char name[] = "abc;
__kernel void k(__global int *out) { out[0] = name[0]; }
