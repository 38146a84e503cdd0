#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cpu:0's gangs (docs/cpu-backend.md, "Gangs") vectorise: the suite's
reduce_sum and the benchmark's stream_dot translated to C have a gang
region, and gcc (-fopt-info-vec, the backend's flags) reports the lane loop
of the gang's full steps as vectorised. Skipped (77) without gcc.

Usage: test_cpu_gang_vec.py ANYGPU SOURCE_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FLAGS = ["-march=native", "-O3", "-fPIC", "-std=c11", "-ffp-contract=off", "-fwrapv",
         "-fno-math-errno", "-fno-trapping-math", "-w", "-fopt-info-vec-optimized", "-c"]
CASES = [("tools/suite/reduce.cl", [], "kl_run_reduce_sum"),
         ("tools/bench/bench_kernels.cl", ["-D", "BENCH_FP64"], "kl_run_stream_dot")]


def full_step_lane_loops(lines, start):
    """Line numbers (1-based) of the lane loops inside a gang's full steps."""
    found = []
    for i in range(start + 1, len(lines) - 1):
        if "static void kl_run_" in lines[i]:
            break
        if "for (; __gib <= __glim;" in lines[i] and "for (size_t __gl = 0;" in lines[i + 1]:
            found.append(i + 2)
    return found


def main():
    anygpu, source_dir = sys.argv[1], sys.argv[2]
    gcc = shutil.which("gcc")
    if not gcc:
        print("skip: no gcc")
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for source, options, run in CASES:
            c_file = os.path.join(tmp, "k.c")
            subprocess.run([anygpu, "compile", os.path.join(source_dir, source), "--target", "c",
                            *options, "-o", c_file], check=True, timeout=300)
            lines = open(c_file).read().split("\n")
            start = next(i for i, line in enumerate(lines) if "static void " + run in line)
            loops = full_step_lane_loops(lines, start)
            if not loops:
                print(f"FAIL {source}: {run} has no gang region")
                failures += 1
                continue
            out = subprocess.run([gcc, *FLAGS, "-o", os.path.join(tmp, "k.o"), c_file],
                                 capture_output=True, text=True, timeout=300)
            if out.returncode != 0:
                print(f"FAIL {source}: gcc: {out.stderr[-2000:]}")
                failures += 1
                continue
            vectorised = {int(m.group(1)) for m in
                          re.finditer(r"k\.c:(\d+):\d+: optimized: loop vectorized", out.stderr)}
            for line in loops:
                ok = line in vectorised
                failures += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {source}: {run}: lane loop at line {line} "
                      f"{'vectorised' if ok else 'not vectorised'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
