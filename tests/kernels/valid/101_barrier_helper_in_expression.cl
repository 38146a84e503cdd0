// Helpers with barriers called inside larger expressions (issue 31, item 6):
// `a = b * f(v) + 1`, an `if` condition, a return of `v + f(v) * 2`, two
// calls and a builtin of one in one expression, a call in another's
// argument. The C target computes each call into a temporary first, as a
// compiler would. The scan loops a fixed count (a loop bounded by the local
// id between barriers is one PoCL 3.1 miscompiles: tests/fuzz/known-driver-bugs).
// @kernel k
// @global 90
// @local 32
// @arg buffer int 90 random -50 50
// @arg buffer int 90 output
// @arg local int 32
int scan_in_group(__local int *s, int v) {
  uint l = get_local_id(0);
  s[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  int sum = 0;
  for (uint i = 0; i < get_local_size(0); i++)
    if (i <= l) sum += s[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  return sum;
}

int twice(__local int *s, int v) { return v + scan_in_group(s, v) * 2; }

__kernel void k(__global const int *in, __global int *out, __local int *s) {
  size_t g = get_global_id(0);
  int v = g < 90 ? in[g] : 0; /* every work-item reaches the barriers */
  int a = 3, b = v & 7;
  a = b * scan_in_group(s, v) + 1;
  if (scan_in_group(s, a & 15) > 100) a += 5;
  int c = twice(s, a) - scan_in_group(s, b) + max(scan_in_group(s, 1), 2);
  int d = scan_in_group(s, scan_in_group(s, b) + 1) ^ c;
  if (g < 90) out[g] = c + d;
}
