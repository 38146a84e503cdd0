# SPDX-License-Identifier: Apache-2.0
"""Where a Python launch's time goes on cpu:0 (docs/python.md, "The launch path"):
Kernel.__call__, the bare ctypes call of agpu_launch, and the same call from a
C extension (ext_launch.c, built here with cc and python3-config's flags); then
the binding alone: Kernel.__call__ of a kernel whose agpu_launch is a C function
that returns at once (ext_launch.c's noop_launch), which the machine's load and
the launch's own cost do not blur. Medians of 5 rounds of 15 runs of 2,000
launches (20,000 for the binding alone)."""
import ctypes
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

import numpy as np

import anygpu
from anygpu import _lib, launch

HERE = os.path.dirname(os.path.abspath(__file__))


def build_extension():
    out = tempfile.mkdtemp()
    lib = _lib.library_path()
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-I", sysconfig.get_paths()["include"],
                    "-I", os.path.join(HERE, "..", "..", "api"),
                    os.path.join(HERE, "ext_launch.c"), "-o",
                    os.path.join(out, "ext_launch" + sysconfig.get_config_var("EXT_SUFFIX")),
                    lib, f"-Wl,-rpath,{os.path.dirname(lib)}"], check=True)
    sys.path.insert(0, out)
    import ext_launch
    return ext_launch


def time_direct(k, b, n, count):
    t0 = time.perf_counter()
    for _ in range(count):
        k(64, 64, b, n)
    return (time.perf_counter() - t0) / count


def main():
    ext_module = build_extension()
    ext = ext_module.launch
    dev = anygpu.device("cpu:0")
    program = dev.program("__kernel void empty(__global float* a, uint n) {}")
    k = program.kernel("empty")
    real, launch._LAUNCH_ADDRESS = launch._LAUNCH_ADDRESS, ext_module.noop_address()
    k_noop = program.kernel("empty")  # with the C extension, its launch does nothing
    launch._LAUNCH_ADDRESS = real
    b, n = dev.empty(64), np.uint32(64)
    k(64, 64, b, n)
    dev.finish()
    addr = ctypes.addressof
    ways = {
        "Kernel.__call__": lambda: k(64, 64, b, n),
        "ctypes agpu_launch": lambda: launch._launch(None, k._kernel_ptr, 1, k._global,
                                                     k._local, 2, k._args),
        "C extension agpu_launch": lambda: ext(None, k._kernel_ptr.value, 1, addr(k._global),
                                               addr(k._local), 2, addr(k._args)),
    }
    if launch._speedups is not None:
        k_noop(64, 64, b, n)
        ways["binding alone (no-op launch)"] = None
    results = {name: [] for name in ways}
    for _ in range(5):
        for name, fn in ways.items():
            runs = []
            for _ in range(15):
                if fn is None:  # a loop of direct calls, as overhead.py's
                    runs.append(time_direct(k_noop, b, n, 20000))
                    continue
                t0 = time.perf_counter()
                for _ in range(2000):
                    fn()
                dev.finish()
                runs.append((time.perf_counter() - t0) / 2000)
            results[name].append(1e6 * statistics.median(runs))
    for name, values in results.items():
        print(f"{name:29} {statistics.median(values):.2f} us  "
              f"({' '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()
