# SPDX-License-Identifier: Apache-2.0
"""buf.get() against the C API's agpu_buffer_read, like for like (docs/python.md, "Reads").

    python python/bench/bench_get.py [--mib N] [--reps N] [--rounds N] [SELECTOR...]

For each device (default cpu:0 opencl:0 vulkan:0), in a process of its own:
one buffer of N MiB (default 256), read whole, each way below once per
repetition, interleaved (so that the machine's load falls on every way
alike), --reps times (default 9); the table has the medians (ms) and the
ratios of each Python way to the C way that gets its memory the same way.
The C side is c_read.c, built here into a shared object and called in the
same process, on the same buffer, through ctypes (the clock runs inside C).

  C, warm        agpu_buffer_read into memory read before (huge pages, as NumPy's)
  get(out=)      buf.get(out=a), a touched before             vs C, warm
  get(), cached  a = buf.get() in a loop (the host cache)       vs C, warm
  C, malloc      malloc then read: fresh memory, as a C program has it
  C, huge        mmap + MADV_HUGEPAGE then read: fresh memory as np.empty asks for it
  np.empty + get(out=)   the same from Python: how get() allocated before    vs C, huge
  C, populate    mmap + MADV_HUGEPAGE, prefaulted with MADV_POPULATE_WRITE, then read
  get(), fresh   buf.get() with the host cache off: fresh memory as get() allocates it
                 (anygpu.buffer._fresh_block)                                 vs C, populate

A fresh allocation's time counts (as a new array's does); freeing it does not
(an array dies after get() returns). --rounds repeats the whole run and shows
the medians over rounds."""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import anygpu
from anygpu import _lib
from anygpu import buffer as buffer_module

HERE = os.path.dirname(os.path.abspath(__file__))
C_WARM, C_MALLOC, C_HUGE, C_POPULATE = range(4)
COLUMNS = ["C, warm", "get(out=)", "get(), cached", "C, malloc", "C, huge", "np.empty + get(out=)",
           "C, populate", "get(), fresh"]


def build_c():
    """c_read.c as a shared object that links nothing (it is handed agpu_buffer_read)."""
    so = os.path.join(tempfile.mkdtemp(), "c_read.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-I", os.path.join(HERE, "..", "..", "api"),
                    os.path.join(HERE, "c_read.c"), "-o", so], check=True)
    c = ctypes.CDLL(so)
    c.c_read.restype = ctypes.c_double
    c.c_read.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return c


def measure(selector, mib, reps):
    """Medians (ms) of each column on one device, in this process."""
    c = build_c()
    read = ctypes.cast(_lib.lib.agpu_buffer_read, ctypes.c_void_p).value
    cache = buffer_module.host_cache
    times = {name: [] for name in COLUMNS}
    with anygpu.device(selector) as dev:
        buf = dev.empty(mib << 20, np.uint8)
        buf.fill(7)
        dev.finish()
        handle, size = buf._h(), buf.nbytes
        out = np.empty(buf.shape, np.uint8)
        out[:] = 0  # touched: warm
        buf.get()  # gone at once: the host cache now has a block of this size

        def c_side(name, mode):
            seconds = c.c_read(read, handle, size, mode)
            if seconds < 0:
                raise RuntimeError(f"c_read {name}: {_lib.text(_lib.lib.agpu_last_error())}")
            times[name].append(seconds)

        def py_side(name, call):
            t0 = time.perf_counter()
            a = call()
            times[name].append(time.perf_counter() - t0)
            del a  # freed (or back to the cache) after the clock stops

        def fresh():
            held, cache.max_bytes = cache.max_bytes, 0
            try:
                return buf.get()
            finally:
                cache.max_bytes = held

        for _ in range(reps):
            c_side("C, warm", C_WARM)
            py_side("get(out=)", lambda: buf.get(out=out))
            py_side("get(), cached", buf.get)
            c_side("C, malloc", C_MALLOC)
            c_side("C, huge", C_HUGE)
            py_side("np.empty + get(out=)", lambda: buf.get(out=np.empty(buf.shape, np.uint8)))
            c_side("C, populate", C_POPULATE)
            py_side("get(), fresh", fresh)
        c.c_read_release()
        np.testing.assert_array_equal(out[:: 1 << 20], 7)
    return [1e3 * statistics.median(times[name]) for name in COLUMNS]


def in_child(selector, mib, reps):
    out = subprocess.run([sys.executable, __file__, "--child", selector, str(mib), str(reps)],
                         check=True, capture_output=True, text=True).stdout
    return [float(v) for v in out.split()]


def main(argv):
    mib, reps, rounds, selectors = 256, 9, 1, []
    while argv:
        if argv[0] in ("--mib", "--reps", "--rounds"):
            value = int(argv[1])
            mib, reps, rounds = ((value, reps, rounds) if argv[0] == "--mib" else
                                 (mib, value, rounds) if argv[0] == "--reps" else
                                 (mib, reps, value))
            argv = argv[2:]
        else:
            selectors.append(argv.pop(0))
    selectors = selectors or ["cpu:0", "opencl:0", "vulkan:0"]
    print(f"buf.get() of {mib} MiB against agpu_buffer_read; medians (ms) of {reps} "
          f"interleaved repetitions" + (f", medians over {rounds} rounds" if rounds > 1 else "")
          + f"; NumPy {np.__version__}")
    print("| device | " + " | ".join(COLUMNS) + " | get(out=) / C warm | cached / C warm "
          "| np.empty + get(out=) / C huge | fresh / C populate | fresh / C malloc "
          "| fresh / np.empty + get(out=) |")
    print("| --- " * (len(COLUMNS) + 7) + "|")
    for sel in selectors:
        runs = [in_child(sel, mib, reps) for _ in range(rounds)]
        m = dict(zip(COLUMNS, (statistics.median(col) for col in zip(*runs))))
        cells = " | ".join(f"{m[name]:.1f}" for name in COLUMNS)
        ratios = [("get(out=)", "C, warm"), ("get(), cached", "C, warm"),
                  ("np.empty + get(out=)", "C, huge"), ("get(), fresh", "C, populate"),
                  ("get(), fresh", "C, malloc"), ("get(), fresh", "np.empty + get(out=)")]
        cells += "".join(f" | {m[a] / m[b]:.2f}x" for a, b in ratios)
        print(f"| {sel} | {cells} |", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(*measure(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    else:
        main(sys.argv[1:])
