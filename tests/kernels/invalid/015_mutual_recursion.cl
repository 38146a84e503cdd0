// Recursion through two functions: reported at the call that closes the
// cycle in a depth-first walk of the calls from the kernel, in source order.
// @error 6:41 recursion is not supported
int is_odd(int n);
int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

__kernel void k(__global int *out) { out[0] = is_even(10); }
