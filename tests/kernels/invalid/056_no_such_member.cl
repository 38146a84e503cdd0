// A member the struct does not have: reported at the member name.
// @error 8:14 no member named 'zz' in 'pair'
typedef struct {
  int x, y;
} pair;
__kernel void k(__global int *out) {
  pair p = {1, 2};
  out[0] = p.zz;
}
