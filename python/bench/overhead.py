# SPDX-License-Identifier: Apache-2.0
"""Launch overhead and buffer reads, Python against the C API (docs/python.md).

    python bench/overhead.py [--rounds N] [--pyopencl PYTHON] [SELECTOR...]

builds c_baseline.c against the package's libanygpu.so.0 and runs the C side,
the package's launch (the repeat launch in C, anygpu._speedups), the pure
ctypes launch (ANYGPU_PYTHON_LAUNCH=1) and, on opencl:0 with --pyopencl
naming a Python that has PyOpenCL, pyopencl_launch.py, in turn on each
device, each in a process of its own: launches of an empty kernel queued back to back (then
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
        from anygpu.buffer import host_cache
        cache_bytes, host_cache.max_bytes = host_cache.max_bytes, 0
        for _ in range(5):  # into fresh memory (the host cache off): page faults
            t0 = time.perf_counter()
            big.get()
            fresh.append(time.perf_counter() - t0)
        host_cache.max_bytes, cached = cache_bytes, []
        a = big.get()
        for _ in range(REPEATS):  # a = buf.get() in a loop: the memory of the last but one
            t0 = time.perf_counter()
            a = big.get()
            cached.append(time.perf_counter() - t0)
        del a
        return (launch_us, 1e3 * statistics.median(reads), 1e3 * statistics.median(fresh),
                1e3 * statistics.median(cached))


def c_side(exe, selector):
    out = subprocess.run([exe, selector, str(REPEATS), str(LAUNCHES), str(READ_MIB)],
                         check=True, capture_output=True, text=True).stdout.split()
    values = dict(zip(out[::2], map(float, out[1::2])))
    return values["launch_us"], values["read_ms"], values["read_fresh_ms"]


def python_side_in_child(selector, pure=False):
    """python_side in a process of its own, as the C side runs: devices opened
    before (PoCL's and the CPU backend's threads) do not share the cores."""
    env = dict(os.environ, ANYGPU_PYTHON_LAUNCH="1") if pure else None
    out = subprocess.run([sys.executable, __file__, "--python-side", selector], check=True,
                         capture_output=True, text=True, env=env).stdout
    return tuple(map(float, out.split()))


def pyopencl_side(python):
    out = subprocess.run([python, os.path.join(HERE, "pyopencl_launch.py")], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    return [float(line.split(": ")[1].split()[0]) for line in out]


def main(selectors, pyopencl=None, rounds=1):
    """Each side in turn, `rounds` times over (interleaved, so that the machine's
    load falls on every side alike); the table shows the medians over rounds."""
    exe = build_c()
    print("| device | launch, C (µs) | Python (µs) | difference | ctypes only (µs) "
          "| PyOpenCL knl() / args set once (µs) | read 256 MiB, C (ms) "
          "| get(out=) (ms) | get(), cached (ms) | C, fresh (ms) | get(), fresh (ms) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    med = statistics.median
    for sel in selectors:
        runs = []
        for _ in range(rounds):
            c_launch, c_read, c_fresh = c_side(exe, sel)
            py_launch, py_read, py_fresh, py_cached = python_side_in_child(sel)
            pure_launch = python_side_in_child(sel, pure=True)[0]
            pcl = (pyopencl_side(pyopencl) if pyopencl and sel.startswith("opencl")
                   else [float("nan")] * 2)
            runs.append((c_launch, py_launch, pure_launch, *pcl, c_read, py_read, py_cached,
                         c_fresh, py_fresh))
        (c_launch, py_launch, pure_launch, pcl_knl, pcl_once, c_read, py_read, py_cached,
         c_fresh, py_fresh) = [med(column) for column in zip(*runs)]
        pcl = "-" if pcl_knl != pcl_knl else f"{pcl_knl:.2f} / {pcl_once:.2f}"
        print(f"| {sel} | {c_launch:.2f} | {py_launch:.2f} | {py_launch - c_launch:+.2f} "
              f"| {pure_launch:.2f} | {pcl} "
              f"| {c_read:.1f} | {py_read:.1f} ({py_read / c_read:.2f}x) "
              f"| {py_cached:.1f} ({py_cached / c_read:.2f}x) "
              f"| {c_fresh:.1f} | {py_fresh:.1f} ({py_fresh / c_read:.2f}x, "
              f"{py_fresh / c_fresh:.2f}x of C fresh) |", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--python-side"]:
        print(*python_side(sys.argv[2]))
    else:
        argv, pyopencl, rounds = sys.argv[1:], None, 1
        while argv[:1] in (["--pyopencl"], ["--rounds"]):
            if argv[0] == "--pyopencl":
                pyopencl = argv[1]
            else:
                rounds = int(argv[1])
            argv = argv[2:]
        main(argv or ["cpu:0", "opencl:0", "vulkan:0"], pyopencl, rounds)
