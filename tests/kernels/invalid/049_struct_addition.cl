// Structs have no arithmetic: reported at the operator.
// @error 8:13 invalid operands to binary '+'
typedef struct {
  int a;
} box;
__kernel void k(__global int *out) {
  box x = {1}, y = {2};
  box z = x + y;
  out[0] = z.a;
}
