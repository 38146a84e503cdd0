// The two arms of ?: have no common type: reported at the ?.
// @error 8:18 incompatible operand types
typedef struct {
  int a;
} box;
__kernel void k(__global int *out) {
  box b = {1};
  box c = out[0] ? b : 1;
  out[1] = c.a;
}
