// A function that calls itself: reported at the recursive call.
// @error 3:48 recursion is not supported
int factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }

__kernel void k(__global int *out) { out[0] = factorial(5); }
