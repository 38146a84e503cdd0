# SPDX-License-Identifier: Apache-2.0
"""PyOpenCL's side of the opencl:0 launch overhead in docs/python.md: the same
empty kernel, 2,000 launches queued back to back then one finish, per launch,
median of 15 runs. PyOpenCL is not a dependency: install it in a throwaway
environment (pip install pyopencl numpy) and run this there."""
import statistics
import time

import numpy as np
import pyopencl as cl

REPEATS, LAUNCHES = 15, 2000


def main():
    ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, "__kernel void empty(__global float* a, uint n) {}").build()
    knl = prg.empty
    buf, n = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 256), np.uint32(64)
    knl(queue, (64,), (64,), buf, n)
    queue.finish()
    times = {}
    for label, launch in [("kernel(queue, ...)", lambda: knl(queue, (64,), (64,), buf, n)),
                          ("enqueue_nd_range_kernel, args set once",
                           lambda: cl.enqueue_nd_range_kernel(queue, knl, (64,), (64,)))]:
        knl.set_args(buf, n)
        runs = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            for _ in range(LAUNCHES):
                launch()
            queue.finish()
            runs.append((time.perf_counter() - t0) / LAUNCHES)
        times[label] = 1e6 * statistics.median(runs)
    for label, us in times.items():
        print(f"pyopencl {label}: {us:.2f} us per launch")


if __name__ == "__main__":
    main()
