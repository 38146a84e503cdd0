# SPDX-License-Identifier: Apache-2.0
"""Vector add on one device (ANYGPU_DEVICE or the best one), checked against NumPy."""
import sys

import numpy as np

import anygpu

SOURCE = """
__kernel void vadd(__global const float* a, __global const float* b,
                   __global float* c, uint n) {
  size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
"""


def main(selector=None, n=1_000_003):
    rng = np.random.default_rng(0)
    a, b = rng.random(n, np.float32), rng.random(n, np.float32)
    with anygpu.device(selector) as dev:
        vadd = dev.program(SOURCE).kernel("vadd")
        c = dev.empty(n, np.float32)
        vadd(n, None, dev.to_device(a), dev.to_device(b), c, np.uint32(n))
        ok = np.array_equal(c.get(), a + b)
        print(f"{dev.selector}: vadd of {n} floats {'matches' if ok else 'DIFFERS FROM'} NumPy")
    return ok


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv[1] if len(sys.argv) > 1 else None) else 1)
