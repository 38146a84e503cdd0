// Declarations around barriers (the audit of issue 34): multi-declarator
// declarations with and without initialisers before and after a barrier,
// const locals, an array with an initialiser, induction variables of
// different types in one for init (uint, and a second loop of size_t),
// a comma expression in the step, and declarations in while and do bodies
// that hold barriers. Sizes are not multiples of the group.
// @kernel shapes
// @global 100
// @local 32
// @arg buffer int 100 random -50 50
// @arg buffer int 100 output
// @arg buffer float 100 output
// @arg local int 32
// @arg value uint 100
__kernel void shapes(__global const int *in, __global int *out, __global float *fout,
                     __local int *tile, uint n) {
  uint lid = get_local_id(0), gid = get_global_id(0), ls = get_local_size(0);
  int x = gid < n ? in[gid] : 0, y, z = 3 * x;
  const int k = x - 7, m = 2;
  int weights[4] = {1, -2, 3, -4};
  y = x + k;
  tile[lid] = x;
  barrier(CLK_LOCAL_MEM_FENCE);
  int left = tile[(lid + ls - 1) % ls], right = tile[(lid + 1) % ls], none;
  none = left - right;
  int acc = 0;
  for (uint i = 0, j = ls - 1; i < ls; i += 4, j -= 4) {
    acc += tile[i] * weights[i % 4] - tile[j];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (size_t s = 1, step = 2; s < ls; s *= 2, step += 1) {
    int mine = tile[lid], other = lid >= s ? tile[lid - s] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[lid] = mine + other + (int)step - (int)step;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  int scan = tile[lid];
  uint rounds = 3;
  while (rounds > 0) {
    int before = tile[(lid + rounds) % ls], unset;
    unset = before ^ (int)rounds;
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[lid] = unset + m;
    barrier(CLK_LOCAL_MEM_FENCE);
    rounds--;
  }
  float f = 0.5f;
  int it = 0;
  do {
    float g = f * 2.0f, h = g + (float)tile[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[(lid + 1) % ls] = (int)h;
    f = g;
    barrier(CLK_LOCAL_MEM_FENCE);
  } while (++it < 2);
  if (gid < n) {
    out[gid] = x + y + z + k + left * 3 + right + none + acc + scan + tile[lid];
    fout[gid] = f + (float)weights[lid % 4];
  }
}
