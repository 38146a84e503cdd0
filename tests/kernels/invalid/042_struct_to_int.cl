// A struct used where an int is needed.
// @error 8:11 cannot convert
typedef struct {
  int a, b;
} pair;
__kernel void k(__global int *out) {
  pair p = {1, 2};
  int x = p;
  out[0] = x;
}
