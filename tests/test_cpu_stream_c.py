#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cpu:0's streaming stores (docs/cpu-backend.md, "Streaming stores") are
where they should be: the benchmark's stream_triad translated to C stores
through kl_stream_ and fences at its end, a kernel that reads the buffer it
writes (in place, or the suite's saxpy) does not; gcc with the backend's
flags vectorises the triad's chunk loop (-fopt-info-vec), and on x86-64 the
object's triad has non-temporal stores (movntdq) and an sfence. Skipped (77)
without gcc.

Usage: test_cpu_stream_c.py ANYGPU SOURCE_DIR
"""
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

FLAGS = ["-march=native", "-O3", "-fPIC", "-std=c11", "-ffp-contract=off", "-fwrapv",
         "-fno-math-errno", "-fno-trapping-math", "-w"]
GRID_STRIDE = """
__kernel void gs_triad(__global double *a, __global const double *b, __global const double *c,
                       double s, uint n) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) a[i] = b[i] + s * c[i];
}
__kernel void gs_in_place(__global double *a, uint n) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) a[i] = 2.0 * a[i];
}
"""
IN_PLACE = """
__kernel void twice(__global double *a, __global const double *b) {
  size_t i = get_global_id(0);
  a[i] = 2.0 * a[i] + b[i];
}
__kernel void neighbour(__global double *a, __global const double *b) {
  size_t i = get_global_id(0);
  a[i] = 1.0;
  a[i + 1] = b[i];
}
__kernel void above(__global double *a, uint n) {
  uint i = get_global_id(0);
  if (i >= n) a[i] = 1.0; /* false in the groups below n: no guard */
}
__kernel void late_read(__global double *a, __global double *c, __global const double *b) {
  size_t i = get_global_id(0);
  a[i] = 1.0;
  c[i] = b[i]; /* b may be a: read after a's store */
}
"""


def function(text, name):
    """The text of kl_run_<name>."""
    start = text.index("static void kl_run_" + name + "(")
    end = text.index("\n}\n", start)
    return text[start:end + 3], text[:start].count("\n")


def translate(anygpu, tmp, source, options, stdin=None):
    c_file = os.path.join(tmp, "k.c")
    subprocess.run([anygpu, "compile", source, "--target", "c", *options, "-o", c_file],
                   check=True, timeout=300, input=stdin, text=True)
    return c_file, open(c_file).read()


def check(failures, ok, what):
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    return failures + (not ok)


def main():
    anygpu, source_dir = sys.argv[1], sys.argv[2]
    gcc = shutil.which("gcc")
    if not gcc:
        print("skip: no gcc")
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        bench = os.path.join(source_dir, "tools/bench/bench_kernels.cl")
        c_file, text = translate(anygpu, tmp, bench, ["-D", "BENCH_FP64"])
        triad, first_line = function(text, "stream_triad")
        failures = check(failures, "kl_stream_(&" in triad, "stream_triad streams its stores")
        failures = check(failures, "if (__kl_stream) KL_STREAM_FENCE_();" in triad,
                         "stream_triad fences its streaming stores")
        dot, _ = function(text, "stream_dot")
        failures = check(failures, "kl_stream_" not in dot, "stream_dot does not stream")
        # the chunk loop of the triad vectorises
        lines = triad.split("\n")
        chunk = [first_line + i + 1 for i, line in enumerate(lines)
                 if "for (size_t __lx = __sx;" in line]
        out = subprocess.run([gcc, *FLAGS, "-fopt-info-vec-optimized", "-S", "-o",
                              os.path.join(tmp, "k.s"), c_file],
                             capture_output=True, text=True, timeout=300)
        failures = check(failures, out.returncode == 0, "gcc compiles the benchmark's C")
        vectorised = {int(m.group(1)) for m in
                      re.finditer(r"k\.c:(\d+):\d+: optimized: loop vectorized", out.stderr)}
        failures = check(failures, len(chunk) == 1 and chunk[0] in vectorised,
                         f"stream_triad's chunk loop (line {chunk}) vectorised")
        if platform.machine() in ("x86_64", "AMD64") and out.returncode == 0:
            asm = open(os.path.join(tmp, "k.s")).read()
            body = asm[asm.index("kl_run_stream_triad:"):]
            body = body[:body.index(".size\tkl_run_stream_triad")]
            failures = check(failures, re.search(r"\bv?movnt", body) is not None,
                             "stream_triad's object has non-temporal stores")
            failures = check(failures, "sfence" in body, "stream_triad's object has an sfence")
        # kernels that read what they write keep the ordinary stores
        _, text = translate(anygpu, tmp, "-", [], stdin=IN_PLACE)
        for name in ("twice", "neighbour", "above", "late_read"):
            body, _ = function(text, name)
            failures = check(failures, "kl_stream_" not in body, f"{name} does not stream")
        _, text = translate(anygpu, tmp, "-", [], stdin=GRID_STRIDE)
        body, _ = function(text, "gs_triad")
        failures = check(failures, "kl_stream_(&v0_a[__gib], __st0, __gw" in body and
                         "KL_STREAM_FENCE_();" in body, "a grid-stride triad's gang streams")
        body, _ = function(text, "gs_in_place")
        failures = check(failures, "kl_stream_" not in body, "an in-place grid-stride loop does not")
        suite = os.path.join(source_dir, "tools/suite/vector.cl")
        _, text = translate(anygpu, tmp, suite, [])
        body, _ = function(text, "saxpy")
        failures = check(failures, "kl_stream_" not in body, "the suite's saxpy does not stream")
        for name in ("copy", "scale", "add", "triad"):
            body, _ = function(text, name)
            failures = check(failures, "kl_stream_(&" in body and "((int)1)" in body,
                             f"the suite's {name} (if (i < n)) streams in its full groups")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
