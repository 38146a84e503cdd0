# SPDX-License-Identifier: Apache-2.0
"""A work-group reduction run on every device and compared, output by output, with
the reference device (OpenCL's) by anygpu run --compare's rule; then summed on the
host and checked against NumPy."""
import sys

import numpy as np

import anygpu

SOURCE = """
__kernel void block_sum(__global const float* in, __global float* partial,
                        __local float* scratch, uint n) {
  size_t lid = get_local_id(0), gid = get_global_id(0);
  scratch[lid] = gid < n ? in[gid] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
"""


def main(n=1_000_000, group=256):
    x = np.random.default_rng(1).random(n, np.float32)
    groups = -(-n // group)
    partial = np.zeros(groups, np.float32)
    result = anygpu.run_everywhere(SOURCE, "block_sum",
                                   [x, partial, anygpu.LocalMemory(group * 4), np.uint32(n)],
                                   global_size=groups * group, local_size=group)
    print(result)
    exact = x.sum(dtype=np.float64)
    for sel, outs in result.outputs.items():
        total = outs["partial"].sum(dtype=np.float64)
        print(f"{sel:10} sum {total:.6f}  numpy {exact:.6f}  rel err {abs(total - exact) / exact:.1e}")
    return result.ok and not result.errors


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
