// __local arrays of 32- and 64-bit integers read through pointers cast to
// float, int and uint (mcxcl's `((__local float *)sharedmem)[i]` of a
// `__local ulong *`): on Vulkan, whose shared arrays cannot alias, a read
// of word o is a[o] (or a[o / 2] shifted by 32 * (o % 2)) bit-cast to the
// view's type.
// @kernel words
// @global 1000
// @local 64
// @arg buffer uint 1000 random 0 4294967295
// @arg buffer ulong 1000 random 0 18446744073709551615
// @arg buffer float 1000 output
// @arg buffer uint 1000 output
// @arg local ulong 64
// @arg value int 1000
__kernel void words(__global const uint *a, __global const ulong *b, __global float *f,
                    __global uint *u, __local ulong *wide, int n) {
  __local uint narrow[64];
  int i = get_global_id(0), l = get_local_id(0);
  narrow[l] = i < n ? (a[i] & 0x3fffffffu) | 0x3f000000u : 0u;
  wide[l] = i < n ? b[i] : 0ul;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i >= n) return;
  __local const float *nf = (__local const float *)narrow;
  __local const uint *wu = (__local const uint *)wide;
  __local const int *wi = (__local const int *)(wide + 1);
  int k = (l * 7 + 3) % 64;
  f[i] = nf[k] + *(nf + (63 - k));
  u[i] = wu[2 * k + 1] ^ wu[k] ^ (uint)wi[(l + 5) % 62];
}
