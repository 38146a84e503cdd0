# SPDX-License-Identifier: Apache-2.0
"""Launch overhead, Python against the C API (docs/python.md).

    python bench/overhead.py [--rounds N] [--pyopencl PYTHON] [--baseline PYTHON] [SELECTOR...]

builds c_baseline.c against the package's libanygpu.so.0 and runs the C side,
the package's launch (in C, anygpu._speedups.KernelBase), the pure
ctypes launch (ANYGPU_PYTHON_LAUNCH=1) and, on opencl:0 with --pyopencl
naming a Python that has PyOpenCL, pyopencl_launch.py, in turn on each
device, each in a process of its own: launches of an empty kernel queued back to back (then
one finish), per launch; medians of repeated runs. Reads (buf.get() against
agpu_buffer_read) are bench_get.py's. --baseline names a Python with another
install of the package (another commit's), whose launch runs in the same rounds
(before and after a change, under the same load)."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import anygpu
from anygpu import _lib

REPEATS, LAUNCHES = 15, 2000
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
        return 1e6 * statistics.median(times)


def c_side(exe, selector):
    out = subprocess.run([exe, selector, str(REPEATS), str(LAUNCHES)],
                         check=True, capture_output=True, text=True).stdout.split()
    return dict(zip(out[::2], map(float, out[1::2])))["launch_us"]


def python_side_in_child(selector, pure=False, python=None):
    """python_side in a process of its own, as the C side runs: devices opened
    before (PoCL's and the CPU backend's threads) do not share the cores."""
    env = dict(os.environ, ANYGPU_PYTHON_LAUNCH="1") if pure else None
    out = subprocess.run([python or sys.executable, __file__, "--python-side", selector],
                         check=True,
                         capture_output=True, text=True, env=env).stdout
    return float(out)


def pyopencl_side(python):
    out = subprocess.run([python, os.path.join(HERE, "pyopencl_launch.py")], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    return [float(line.split(": ")[1].split()[0]) for line in out]


def main(selectors, pyopencl=None, rounds=1, baseline=None):
    """Each side in turn, `rounds` times over (interleaved, so that the machine's
    load falls on every side alike); the table shows the medians over rounds."""
    exe = build_c()
    base = "| baseline Python (µs) | difference " if baseline else ""
    print(f"| device | launch, C (µs) {base}| Python (µs) | difference | ctypes only (µs) "
          "| PyOpenCL knl() / args set once (µs) |")
    print("| --- " * (8 if baseline else 6) + "|")
    med = statistics.median
    nan = float("nan")
    for sel in selectors:
        runs = []
        for _ in range(rounds):
            c_launch = c_side(exe, sel)
            base_launch = python_side_in_child(sel, python=baseline) if baseline else nan
            py_launch = python_side_in_child(sel)
            pure_launch = python_side_in_child(sel, pure=True)
            pcl = (pyopencl_side(pyopencl) if pyopencl and sel.startswith("opencl")
                   else [nan] * 2)
            runs.append((c_launch, base_launch, py_launch, pure_launch, *pcl))
        c_launch, base_launch, py_launch, pure_launch, pcl_knl, pcl_once = \
            [med(column) for column in zip(*runs)]
        pcl = "-" if pcl_knl != pcl_knl else f"{pcl_knl:.2f} / {pcl_once:.2f}"
        base = f"| {base_launch:.2f} | {base_launch - c_launch:+.2f} " if baseline else ""
        print(f"| {sel} | {c_launch:.2f} {base}| {py_launch:.2f} | {py_launch - c_launch:+.2f} "
              f"| {pure_launch:.2f} | {pcl} |", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--python-side"]:
        print(python_side(sys.argv[2]))
    else:
        argv, options = sys.argv[1:], {"--pyopencl": None, "--rounds": "1", "--baseline": None}
        while argv[:1] and argv[0] in options:
            options[argv[0]] = argv[1]
            argv = argv[2:]
        main(argv or ["cpu:0", "opencl:0", "vulkan:0"], options["--pyopencl"],
             int(options["--rounds"]), options["--baseline"])
