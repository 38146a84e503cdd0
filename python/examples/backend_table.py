# SPDX-License-Identifier: Apache-2.0
"""A backend comparison table: one kernel (a SAXPY over 16 M floats) timed with
events on every device, printed as a table and, where matplotlib is installed,
saved as a bar chart (backend_table.png, or the path given)."""
import sys

import numpy as np

import anygpu

SOURCE = """
__kernel void saxpy(__global const float* x, __global float* y, float a, uint n) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
"""


def time_on(selector, n, repeats=5):
    """Median device time of one launch, in seconds, and the bandwidth in GB/s."""
    with anygpu.device(selector) as dev:
        k = dev.program(SOURCE).kernel("saxpy")
        x, y = dev.to_device(np.ones(n, np.float32)), dev.zeros(n, np.float32)
        q = dev.queue()
        k(n, None, x, y, np.float32(2), np.uint32(n), queue=q)  # warm up
        times = []
        for _ in range(repeats):
            start = q.record()
            k(n, None, x, y, np.float32(2), np.uint32(n), queue=q)
            end = q.record()
            end.wait()
            times.append(end - start)
        t = float(np.median(times))
        return t, 3 * 4 * n / t / 1e9


def main(png="backend_table.png", n=1 << 24):
    rows = [(d["selector"], d["name"], *time_on(d["selector"], n)) for d in anygpu.devices()]
    print(f"{'device':10} {'ms':>8} {'GB/s':>8}  name")
    for sel, name, t, gbs in rows:
        print(f"{sel:10} {1e3 * t:8.2f} {gbs:8.1f}  {name}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no chart)")
        return True
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar([r[0] for r in rows], [r[3] for r in rows])
    ax.set_ylabel("SAXPY GB/s")
    fig.tight_layout()
    fig.savefig(png)
    print(f"chart: {png}")
    return True


if __name__ == "__main__":
    sys.exit(0 if main(*sys.argv[1:2]) else 1)
