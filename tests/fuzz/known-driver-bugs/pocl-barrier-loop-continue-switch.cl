// Found by fuzz_differential --barriers (seed 1059 of a 500-seed run from
// seed 1000; reduced by hand). A do-while with a barrier, an early
// `continue` after it, then a switch whose case 0 runs a while loop that
// assigns part of a private uint8 and falls through. cpu:0, vulkan:0 and a
// Python model of the kernel agree; PoCL 3.1 (opencl:0) gives other values
// for the work-items that take case 0 (out[9], out[16], out[59], ...), as
// if the assignment were lost or taken by the wrong work-item. Without the
// `continue`, or with `w.hi = ...` outside the while loop, PoCL agrees.
//   build/tests/fuzz_differential tests/fuzz/known-driver-bugs/pocl-barrier-loop-continue-switch.cl
//   build/tests/fuzz_differential --a vulkan:0 --b cpu:0 tests/fuzz/known-driver-bugs/pocl-barrier-loop-continue-switch.cl
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void fuzz(__global const uint *in, __global uint *out, __global uint *acc) {
  uint gid = (uint)get_global_id(0);
  uint lid = (uint)get_local_id(0);
  uint x = in[gid];
  uint y = in[(gid + 1u) % 256u];
  int i = (int)in[(gid * 7u) % 256u];
  uint4 v = (uint4)(x, y, gid, lid);
  ulong l = upsample(x, y);
  uint8 w = (uint8)(v, v.wzyx + y);
  {
    uint t6 = 0u, e6;
    do {
      t6 += 4u;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (t6 == 4u) continue;
      switch (min(abs(i | 1), y) & 3u) {
      case 0u: {
        {
          uint w7 = 4u;
          while (w7 > 0u) {
            w7--;
            w.hi = (uint4)(7u, 22u, 4294967288u, 7340032u);
          }
        }
      }
      case 1u: {
      }
      case 2u: {
      }
      default: {
      }
      }
    } while (t6 < 8u);
  }
  uint result = 0u;
  result = result * 31u + (w.s0 ^ w.s1 ^ w.s2 ^ w.s3 ^ w.s4 ^ w.s5 ^ w.s6 ^ w.s7);
  out[gid] = result;
}
