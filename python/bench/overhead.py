# SPDX-License-Identifier: Apache-2.0
"""Launch overhead and buffer reads, Python against the C API (docs/python.md).

    python bench/overhead.py [SELECTOR...]

builds c_baseline.c against the package's libanygpu.so.0 and runs both sides
in turn on each device, each in a process of its own: launches of an empty kernel queued back to back (then
one finish), per launch, and buf.get() of 256 MiB against agpu_buffer_read;
medians of repeated runs."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import anygpu
from anygpu import _lib

REPEATS, LAUNCHES, READ_MIB = 15, 2000, 256
HERE = os.path.dirname(os.path.abspath(__file__))


def build_c():
    libdir = os.path.dirname(_lib.library_path())
    include = os.path.join(HERE, "..", "..", "api")
    exe = os.path.join(tempfile.mkdtemp(), "c_baseline")
    subprocess.run(["cc", "-O2", "-I", include, os.path.join(HERE, "c_baseline.c"), "-o", exe,
                    os.path.join(libdir, os.path.basename(_lib.library_path())),
                    f"-Wl,-rpath,{libdir}"], check=True)
    return exe


def python_side(selector):
    with anygpu.device(selector) as dev:
        k = dev.program("__kernel void empty(__global float* a, uint n) {}").kernel("empty")
        small, n = dev.empty(64, np.float32), np.uint32(64)
        times = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            for _ in range(LAUNCHES):
                k(64, 64, small, n)
            dev.finish()
            times.append((time.perf_counter() - t0) / LAUNCHES)
        launch_us = 1e6 * statistics.median(times)
        big = dev.empty(READ_MIB << 20, np.uint8)
        big.fill(7)
        dev.finish()
        out = np.empty(big.shape, np.uint8)
        out[:] = 0  # touch the pages, as the C side's malloc'd buffer is after its first read
        reads, fresh = [], []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            big.get(out=out)
            reads.append(time.perf_counter() - t0)
        for _ in range(5):
            t0 = time.perf_counter()
            big.get()
            fresh.append(time.perf_counter() - t0)
        return launch_us, 1e3 * statistics.median(reads), 1e3 * statistics.median(fresh)


def c_side(exe, selector):
    out = subprocess.run([exe, selector, str(REPEATS), str(LAUNCHES), str(READ_MIB)],
                         check=True, capture_output=True, text=True).stdout.split()
    values = dict(zip(out[::2], map(float, out[1::2])))
    return values["launch_us"], values["read_ms"], values["read_fresh_ms"]


def python_side_in_child(selector):
    """python_side in a process of its own, as the C side runs: devices opened
    before (PoCL's and the CPU backend's threads) do not share the cores."""
    out = subprocess.run([sys.executable, __file__, "--python-side", selector], check=True,
                         capture_output=True, text=True).stdout
    return tuple(map(float, out.split()))


def main(selectors):
    exe = build_c()
    print("| device | launch, C (µs) | launch, Python (µs) | difference | read 256 MiB, C (ms) "
          "| get(out=) (ms) | C, fresh (ms) | get() (ms) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for sel in selectors:
        c_launch, c_read, c_fresh = c_side(exe, sel)
        py_launch, py_read, py_fresh = python_side_in_child(sel)
        print(f"| {sel} | {c_launch:.2f} | {py_launch:.2f} | {py_launch - c_launch:+.2f} "
              f"| {c_read:.1f} | {py_read:.1f} ({py_read / c_read:.2f}x) "
              f"| {c_fresh:.1f} | {py_fresh:.1f} ({py_fresh / c_fresh:.2f}x) |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--python-side"]:
        print(*python_side(sys.argv[2]))
    else:
        main(sys.argv[1:] or ["cpu:0", "opencl:0", "vulkan:0"])
