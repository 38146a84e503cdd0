// A loop with barriers whose counter was declared before it and stepped
// by an earlier, divergent loop (issue 31, item 6): `for (i = 0; i < 4;
// i++)` has one value of i in every work-item however i got there. The
// C target gives the loop a counter of its own and copies it back after,
// so i's value after the loop is right too; a second counter stepped by
// `+= 3` in a nested loop, and a loop after a break in the divergent one.
// @kernel reused
// @global 96
// @local 32
// @arg buffer int 96 random -50 50
// @arg buffer int 96 output
// @arg local int 32
__kernel void reused(__global const int *in, __global int *out, __local int *s) {
  uint lid = get_local_id(0), n = get_local_size(0);
  int i, j, x = in[get_global_id(0)];
  for (i = 0; i < (int)(lid % 5); i++) x += in[(get_global_id(0) + i) % 96];
  for (j = (int)lid; j < 40; j += 7) {
    if (x > 60) break;
    x += j;
  }
  for (i = 0; i < 4; i++) {
    s[lid] = x + i;
    barrier(CLK_LOCAL_MEM_FENCE);
    x += s[(lid + 1 + i) % n] & 31;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (j = 2; j < 9; j += 3) {
      s[lid] = x ^ j;
      barrier(CLK_LOCAL_MEM_FENCE);
      x -= s[(lid + j) % n] >> 2;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  out[get_global_id(0)] = x * 10 + i + j;
}
