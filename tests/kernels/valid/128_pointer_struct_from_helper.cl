// A helper returns a struct of pointers by value; pointers loaded from it
// go to another helper as parameters (`count_above(r.lo, r.hi, t)`), are
// compared and subtracted (`best - in`, `r.hi - r.lo`), and a pointer to
// the largest element is kept while walking.
// @kernel scan_windows
// @global 600
// @local 64
// @arg buffer int 605 random -50 50
// @arg buffer int 1200 output
// @arg value int 600
typedef struct {
  __global const int *lo;
  __global const int *hi;
} range;

range window(__global const int *in, int i, int w) {
  range r;
  r.lo = in + i;
  r.hi = in + i + w;
  return r;
}

int count_above(__global const int *p, __global const int *end, int t) {
  int c = 0;
  for (; p != end; ++p) c += *p > t;
  return c;
}

__kernel void scan_windows(__global const int *in, __global int *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  range r = window(in, i, 5);
  __global const int *best = r.lo;
  for (__global const int *p = r.lo + 1; p < r.hi; p++)
    if (*p > *best) best = p;
  out[2 * i] = (int)(best - in) * 100 + count_above(r.lo, r.hi, *best - 10);
  out[2 * i + 1] = (int)(r.hi - r.lo);
}
