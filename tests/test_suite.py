#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of `anygpu test` and `anygpu run`.

    python3 test_suite.py PATH/TO/anygpu PATH/TO/tools/suite

Runs the built binary for real on every device this machine has: the JSON
output of `anygpu test`, the planted bugs it must catch (each made from the
suite's own kernel sources by one exact text replacement, run through
--kernels-dir), and `anygpu run --compare` with kernels that agree and one
that differs on one backend through the per-backend macro. Prints one line
per case and "N passed, N failed, N skipped"; exits 1 on any failure.
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from cli_harness import CaseSkipped, run_cases

COMMAND_TIMEOUT_S = 300
RESULT_KEYS = {
    "kernel": str,
    "device": str,
    "status": str,
    "max_rel_error": (float, int, type(None)),
    "tolerance": (float, int, type(None)),
    "time_ms": (float, int, type(None)),
    "reason": str,
}

# The planted bugs: (name, file, the kernels to run, the text replaced, its
# replacement, seconds to keep trying). A lost update from a non-atomic
# increment only shows when work-groups really run at the same time, which a
# loaded 2-core machine does not always do (one medium-size run catches it
# about half the time): that variant is run again, with new seeds, until it
# is caught on every device or its time is up. The others fail every time.
PLANTED_BUGS = (
    (
        "off_by_one",
        "vector.cl",
        "copy.f32",
        "  if (i < n) y[i] = x[i];",
        "  if (i + 1 < n) y[i] = x[i];",
        0,
    ),
    (
        "missing_barrier",
        "matmul.cl",
        "matmul_tiled.f32",
        "    tile_b[ty][tx] = b_row < k && col < n ? b[b_row * n + col] : 0;\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n",
        "    tile_b[ty][tx] = b_row < k && col < n ? b[b_row * n + col] : 0;\n",
        0,
    ),
    (
        "non_atomic_histogram",
        "histogram.cl",
        "histogram_global.u32",
        "    atomic_inc(&bins[(in[i] >> 8) & (BINS - 1)]);",
        "    bins[(in[i] >> 8) & (BINS - 1)] += 1;",
        120,
    ),
)
# The devices the planted bugs must be caught on, where present.
PLANTED_DEVICES = ("cpu:0", "opencl:0")

VECTOR_ADD = """
__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *c, uint n) {
  size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
"""

# Writes a different value at one index on the CPU backend only.
DIFFERS_ON_CPU = """
__kernel void differs(__global const int *a, __global int *out, uint n) {
  size_t i = get_global_id(0);
  if (i >= n) return;
#ifdef __ANYGPU_CPU__
  out[i] = i == 37 ? a[i] + 1 : a[i];
#else
  out[i] = a[i];
#endif
}
"""

SAXPY = """
__kernel void saxpy(__global const float *x, __global float *y, float a, uint n) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
"""

# A float that differs by 1e-3 relative at index 5 on the CPU backend only.
NUDGED_ON_CPU = """
__kernel void nudged(__global const float *x, __global float *y) {
  size_t i = get_global_id(0);
#ifdef __ANYGPU_CPU__
  y[i] = i == 5 ? x[i] * 1.001f : x[i];
#else
  y[i] = x[i];
#endif
}
"""

MATMUL_CONTRACT_OFF = """
#pragma OPENCL FP_CONTRACT OFF
__kernel void mm(__global const float *A, __global const float *B, __global float *C, uint n) {
  size_t r = get_global_id(1), c = get_global_id(0);
  float acc = 0.0f;
  for (uint k = 0; k < n; k++) acc += A[r * n + k] * B[k * n + c];
  C[r * n + c] = acc;
}
"""

# Which backend macro each device's build sees.
WHICH_BACKEND = """
__kernel void which(__global int *out) {
  int v = 0;
#ifdef __ANYGPU_CPU__
  v += 1;
#endif
#ifdef __ANYGPU_OPENCL__
  v += 2;
#endif
#ifdef __ANYGPU_VULKAN__
  v += 4;
#endif
#ifdef __ANYGPU_CUDA__
  v += 8;
#endif
#ifdef __ANYGPU_HIP__
  v += 16;
#endif
  out[get_global_id(0)] = v;
}
"""
BACKEND_BITS = {"cpu": 1, "opencl": 2, "vulkan": 4, "cuda": 8, "hip": 16}


def is_type(value, expected):
    if isinstance(expected, tuple):
        return any(is_type(value, one) for one in expected)
    if expected is int or expected is float:
        return type(value) is expected
    return isinstance(value, expected)


class Fixture:
    def __init__(self, binary, kernels_dir):
        self.binary = binary
        self.kernels_dir = kernels_dir
        self.env = {k: v for k, v in os.environ.items() if k != "ANYGPU_DEVICE"}
        self.work = tempfile.mkdtemp(prefix="anygpu-suite-test-")
        self._devices = None

    def run(self, *args):
        result = subprocess.run(
            [self.binary, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            timeout=COMMAND_TIMEOUT_S,
        )
        return (
            result.returncode,
            result.stdout.decode("utf-8", "replace"),
            result.stderr.decode("utf-8", "replace"),
        )

    def run_json(self, case, *args, allowed=(0,)):
        code, out, err = self.run(*args)
        case.require(code in allowed, f"anygpu {' '.join(args)} exited {code}: {err.strip()}")
        try:
            return json.loads(out)
        except json.JSONDecodeError as error:
            case.require(False, f"anygpu {' '.join(args)}: not JSON: {error}\n{out}")

    def devices(self, case):
        """Every device's selector and backend, from anygpu list --json."""
        if self._devices is None:
            listed = self.run_json(case, "list", "--json")
            self._devices = [(d["selector"], d["backend"]) for d in listed["devices"]]
        return self._devices

    def write(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
        return path

    def variant_dir(self, case, name, file, old, new):
        """A copy of the suite's kernels with one bug planted in `file`."""
        directory = os.path.join(self.work, name)
        shutil.rmtree(directory, ignore_errors=True)
        shutil.copytree(self.kernels_dir, directory)
        path = os.path.join(directory, file)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        case.require(
            text.count(old) == 1,
            f"{file}: the text the {name} bug replaces occurs {text.count(old)} times, not once",
        )
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text.replace(old, new))
        return directory


# ------------------------------------------------------------------ test


def test_json_keys(fixture, case, options):
    report = fixture.run_json(case, "test", "--json", "--seed", "12345", "--kernel", "copy,add.i32")
    case.check(report.get("seed") == 12345, f"seed is {report.get('seed')!r}, expected 12345")
    results = report.get("results")
    case.require(isinstance(results, list) and results, "no results array")
    for result in results:
        for key, expected in RESULT_KEYS.items():
            case.check(key in result, f"result {result}: key '{key}' missing")
            if key in result:
                case.check(is_type(result[key], expected), f"result {result}: '{key}' has a wrong type")
        case.check(result.get("status") in ("pass", "fail", "skip"), f"status {result.get('status')!r}")
    kernels = sorted({r["kernel"] for r in results})
    case.check(kernels == ["add.i32", "copy.f32", "copy.f64"], f"kernels {kernels}")
    devices = {r["device"] for r in results}
    listed = {selector for selector, _ in fixture.devices(case)}
    case.check(devices == listed, f"devices {sorted(devices)}, anygpu list has {sorted(listed)}")


def test_text_matrix(fixture, case, options):
    code, out, err = fixture.run("test", "--seed", "7", "--kernel", "scan,stencil5")
    case.check(code == 0, f"exit {code}: {err.strip()}\n{out}")
    case.check("seed 7" in out, "the seed is not printed")
    lines = out.splitlines()
    header = next((line for line in lines if line.startswith("KERNEL")), "")
    for selector, _ in fixture.devices(case):
        case.check(selector in header.split(), f"no column for {selector}: {header!r}")
    for kernel in ("scan.u32", "stencil5.f32"):
        row = next((line for line in lines if line.startswith(kernel + " ")), None)
        case.check(row is not None and "FAIL" not in row, f"row {kernel}: {row!r}")
    case.check(any(" passed, 0 failed" in line for line in lines), f"no summary line:\n{out}")


def test_every_kernel_listed(fixture, case, options):
    code, out, _ = fixture.run("test", "--list")
    case.require(code == 0, f"--list exited {code}")
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    for expected in ("copy.f32", "saxpy.f64", "bitops.u32", "matmul_tiled.f64", "reduce_sum.f32",
                     "dot.f32", "minmax.f32", "sum_atomic.u32", "transpose.f32", "scan.u32",
                     "histogram_local.u32", "histogram_global.u32", "stencil5.f32"):
        case.check(expected in names, f"{expected} missing from --list")


def test_usage_errors(fixture, case, options):
    for args in (("--size", "huge"), ("--kernel", "no_such_kernel"), ("--seed", "-3"),
                 ("--bogus",)):
        code, _, err = fixture.run("test", *args)
        case.check(code == 2, f"anygpu test {' '.join(args)} exited {code}, expected 2: {err.strip()}")


def test_kernels_dir_unchanged_passes(fixture, case, options):
    """The control for the planted bugs: an unmodified copy passes."""
    directory = fixture.variant_dir(case, "unchanged", "vector.cl", "  if (i < n) y[i] = x[i];",
                                    "  if (i < n) y[i] = x[i];")
    report = fixture.run_json(case, "test", "--json", "--kernels-dir", directory, "--kernel",
                              "copy.f32,matmul_tiled.f32,histogram_global.u32")
    for result in report["results"]:
        case.check(result["status"] == "pass", f"{result['kernel']} on {result['device']}: {result}")


def test_kernels_dir_missing_file_fails(fixture, case, options):
    empty = os.path.join(fixture.work, "empty")
    os.makedirs(empty, exist_ok=True)
    code, out, _ = fixture.run("test", "--kernels-dir", empty, "--kernel", "copy.f32")
    case.check(code == 1, f"exit {code}, expected 1")
    case.check("cannot read" in out and "vector.cl" in out, f"no 'cannot read':\n{out}")


def planted_bug_case(bug):
    name, file, kernel, old, new, seconds = bug

    def case_function(fixture, case, options):
        present = [s for s, _ in fixture.devices(case) if s in PLANTED_DEVICES]
        if not present:
            raise CaseSkipped(f"none of {', '.join(PLANTED_DEVICES)} is present")
        directory = fixture.variant_dir(case, name, file, old, new)
        caught = {}
        deadline = time.monotonic() + seconds
        attempt = 0
        while True:
            waiting = [s for s in present if s not in caught]
            if not waiting:
                break
            if attempt and time.monotonic() > deadline:
                break
            attempt += 1
            report = fixture.run_json(
                case, "test", "--json", "--kernels-dir", directory, "--kernel", kernel,
                "--device", ";".join(waiting), "--seed", str(1000 + attempt),
                "--size", "small" if seconds == 0 else "medium", allowed=(0, 1))
            for result in report["results"]:
                if result["status"] == "fail":
                    caught.setdefault(result["device"], (attempt, result["reason"]))
        for selector in present:
            case.check(selector in caught,
                       f"{name}: anygpu test did not report FAIL for {kernel} on {selector} "
                       f"in {attempt} run(s)")
        for selector, (when, reason) in sorted(caught.items()):
            print(f"     {name} caught on {selector} (run {when}): {reason[:120]}")

    case_function.__name__ = f"test_planted_{name}"
    return case_function


# ------------------------------------------------------------------- run


def test_run_compare_agrees(fixture, case, options):
    source = fixture.write("vector_add.cl", VECTOR_ADD)
    code, out, err = fixture.run("run", source, "--kernel", "vector_add", "--global", "1024",
                                 "--local", "64", "--arg", "buf:float:1000:random",
                                 "--arg", "buf:float:1000:random=-100,100", "--arg",
                                 "buf:float:1000", "--arg", "uint:1000", "--all-devices",
                                 "--compare")
    case.check(code == 0, f"exit {code}: {err.strip()}\n{out}")
    ran = [line.split()[0] for line in out.splitlines() if " ran in " in line]
    if len(ran) < 2:
        raise CaseSkipped(f"fewer than two devices ran it: {ran}")
    for selector in ran[1:] if "opencl:0" not in ran else [s for s in ran if s != "opencl:0"]:
        case.check(any(line.split()[:2] == [selector, "c"] for line in out.splitlines()),
                   f"no comparison line for {selector}:\n{out}")
    case.check("All devices agree." in out, f"no agreement line:\n{out}")


def test_run_compare_reports_mismatch(fixture, case, options):
    selectors = [s for s, _ in fixture.devices(case)]
    if "cpu:0" not in selectors or len(selectors) < 2:
        raise CaseSkipped("needs cpu:0 and another device")
    source = fixture.write("differs.cl", DIFFERS_ON_CPU)
    code, out, err = fixture.run("run", source, "--kernel", "differs", "--global", "1000",
                                 "--arg", "buf:int:1000:random=-50,50", "--arg", "buf:int:1000",
                                 "--arg", "uint:1000", "--compare")
    case.check(code == 1, f"exit {code}, expected 1: {err.strip()}\n{out}")
    mismatch = [line for line in out.splitlines() if "MISMATCH" in line]
    case.require(len(mismatch) == 1, f"expected one MISMATCH line:\n{out}")
    line = mismatch[0]
    for part in ("cpu:0", "'out'", "index 37"):
        case.check(part in line, f"the mismatch line does not name {part}: {line}")


def test_run_compare_tolerances(fixture, case, options):
    """--atol/--rtol (numpy.allclose) and --ulp; the defaults accept fma
    contraction; the report names the worst element and what would pass."""
    selectors = [s for s, _ in fixture.devices(case)]
    if "cpu:0" not in selectors or len(selectors) < 2:
        raise CaseSkipped("needs cpu:0 and another device")
    saxpy = fixture.write("saxpy.cl", SAXPY)
    base = ("run", saxpy, "--kernel", "saxpy", "--global", "4096", "--arg",
            "buf:float:4096:random", "--arg", "buf:float:4096:random", "--arg", "float:1.37",
            "--arg", "uint:4096", "--compare", "--seed", "3")
    code, out, err = fixture.run(*base)
    case.check(code == 0 and "All devices agree." in out,
               f"saxpy with the default tolerances: exit {code}\n{out}{err}")
    case.check("|a - b| <= atol + rtol * |b|, rtol 0.0001 (float)" in out,
               f"the rule is not stated:\n{out}")
    code, _, err = fixture.run(*base, "--ulp", "2", "--atol", "0")
    case.check(code == 2 and "--ulp" in err, f"--ulp with --atol: exit {code}, {err!r}")
    for bad in (("--atol", "-1"), ("--rtol", "x"), ("--ulp", "1.5")):
        code, _, err = fixture.run(*base, *bad)
        case.check(code == 2, f"{' '.join(bad)}: exit {code}, expected 2: {err!r}")

    nudged = fixture.write("nudged.cl", NUDGED_ON_CPU)
    base = ("run", nudged, "--kernel", "nudged", "--global", "64", "--arg",
            "buf:float:64:random=1,2", "--arg", "buf:float:64", "--compare", "--seed", "4")
    code, out, err = fixture.run(*base)
    mismatch = [line for line in out.splitlines() if "MISMATCH: cpu:0" in line]
    case.check(code == 1 and len(mismatch) == 1 and "index 5" in mismatch[0],
               f"a 1e-3 difference with the defaults: exit {code}\n{out}")
    case.check("worst at index 5:" in out and "all pass with --atol" in out and "--ulp" in out,
               f"the worst element and the needed tolerance are not named:\n{out}")
    for passing in (("--rtol", "0.002", "--atol", "0"), ("--atol", "0.01"), ("--ulp", "20000")):
        code, out, _ = fixture.run(*base, *passing)
        case.check(code == 0, f"{' '.join(passing)}: exit {code}\n{out}")
    for failing in (("--rtol", "0.0005", "--atol", "0"), ("--ulp", "100")):
        code, out, _ = fixture.run(*base, *failing)
        case.check(code == 1 and "MISMATCH: cpu:0" in out, f"{' '.join(failing)}: exit {code}\n{out}")


def test_run_fp_contract_off(fixture, case, options):
    """#pragma OPENCL FP_CONTRACT OFF: a float matmul is bit for bit the same
    on opencl:0 (PoCL, which contracts otherwise) and cpu:0."""
    selectors = [s for s, _ in fixture.devices(case)]
    if "cpu:0" not in selectors or "opencl:0" not in selectors:
        raise CaseSkipped("needs opencl:0 and cpu:0")
    source = fixture.write("matmul_off.cl", MATMUL_CONTRACT_OFF)
    code, out, err = fixture.run("run", source, "--kernel", "mm", "--global", "64,64", "--local",
                                 "16,16", "--arg", "buf:float:4096:random", "--arg",
                                 "buf:float:4096:random", "--arg", "buf:float:4096", "--arg",
                                 "uint:64", "--device", "opencl:0;cpu:0", "--compare", "--ulp", "0",
                                 "--seed", "5")
    case.check(code == 0, f"exit {code}: {err.strip()}\n{out}")
    lines = [line.split() for line in out.splitlines()]
    case.check(any(l[:2] == ["cpu:0", "C"] and l[-1] == "identical" for l in lines),
               f"cpu:0 is not identical to opencl:0:\n{out}")


def test_run_backend_macros(fixture, case, options):
    source = fixture.write("which.cl", WHICH_BACKEND)
    out_dir = os.path.join(fixture.work, "which")
    code, out, err = fixture.run("run", source, "--kernel", "which", "--global", "4", "--arg",
                                 "buf:int:4", "--all-devices", "--out", out_dir)
    case.require(code == 0, f"exit {code}: {err.strip()}\n{out}")
    checked = 0
    for selector, backend in fixture.devices(case):
        path = os.path.join(out_dir, f"{selector.replace(':', '-')}.0.out.bin")
        if not os.path.exists(path):
            continue  # a backend that cannot build portable kernels
        with open(path, "rb") as file:
            values = struct.unpack("<4i", file.read())
        case.check(values == (BACKEND_BITS[backend],) * 4,
                   f"{selector}: the kernel saw macros {values}, expected only __ANYGPU_{backend.upper()}__")
        checked += 1
    case.check(checked > 0, f"no device wrote its output:\n{out}")


def test_run_inputs_and_outputs(fixture, case, options):
    source = fixture.write("vector_add.cl", VECTOR_ADD)
    a_path = os.path.join(fixture.work, "a.bin")
    with open(a_path, "wb") as file:
        file.write(struct.pack("<5f", 1, 2, 3, 4, 5))
    out_dir = os.path.join(fixture.work, "io")
    code, out, err = fixture.run("run", source, "--kernel", "vector_add", "--global", "5",
                                 "--arg", f"buf:float:5:file={a_path}", "--arg",
                                 "buf:float:5:fill=0.5", "--arg", "buf:float:5", "--arg", "uint:5",
                                 "--device", "cpu:0", "--out", out_dir)
    case.require(code == 0, f"exit {code}: {err.strip()}")
    case.check("1.5 2.5 3.5 4.5 5.5" in out, f"the output values are not shown:\n{out}")
    with open(os.path.join(out_dir, "cpu-0.2.c.bin"), "rb") as file:
        case.check(struct.unpack("<5f", file.read()) == (1.5, 2.5, 3.5, 4.5, 5.5), "c.bin")


def test_run_usage_errors(fixture, case, options):
    source = fixture.write("vector_add.cl", VECTOR_ADD)
    base = ("run", source, "--kernel", "vector_add", "--global", "8")
    for extra in (("--arg", "buf:floaty:8"), ("--arg", "buf:float:0"), ("--arg", "uint:-1"),
                  ("--arg", "buf:float:8:sometimes"), ("--local", "4,4"),
                  ("--device", "cpu:0", "--all-devices")):
        code, _, err = fixture.run(*base, *extra)
        case.check(code == 2, f"{' '.join(extra)}: exit {code}, expected 2: {err.strip()}")
    # A wrong --arg count: said once (not once per device), naming the parameter.
    code, out, err = fixture.run(*base, "--arg", "buf:float:8", "--all-devices")
    case.check(code == 1 and err == "anygpu: kernel 'vector_add' has 4 parameters, 1 --arg given: "
               "parameter 1 ('b', __global const float*) has no --arg\n",
               f"too few --arg: exit {code}, stderr {err!r}\n{out}")
    code, out, err = fixture.run(*base, "--arg", "buf:float:8", "--arg", "buf:float:8", "--arg",
                                 "buf:float:8", "--arg", "uint:8", "--arg", "int:3",
                                 "--device", "cpu:0")
    case.check(code == 1 and "--arg 4 ('int:3') has no parameter" in err and err.count("\n") == 1,
               f"too many --arg: exit {code}, stderr {err!r}")
    # One prefix for a library error.
    code, out, err = fixture.run("run", source, "--kernel", "vector_add", "--global", "100",
                                 "--local", "64", "--arg", "buf:float:100", "--arg",
                                 "buf:float:100", "--arg", "buf:float:100", "--arg", "uint:100",
                                 "--device", "cpu:0")
    case.check(code == 1 and "FAILED: agpu_launch: kernel 'vector_add'" in out
               and out.count("agpu_launch") == 1 and "(AGPU_ERROR_INVALID_LAUNCH)" in out,
               f"a launch error: exit {code}\n{out}")
    # A local: scratch smaller than the work-group: a warning, the run goes on.
    scratch = fixture.write("scratch.cl", "__kernel void k(__global float *x, __local float *t) {\n"
                            "  if (get_local_id(0) < 16) t[get_local_id(0)] = x[get_global_id(0)];\n"
                            "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                            "  x[get_global_id(0)] = t[0];\n}\n")
    code, out, err = fixture.run("run", scratch, "--kernel", "k", "--global", "64", "--local", "64",
                                 "--arg", "buf:float:64:iota", "--arg", "local:float:64",
                                 "--device", "cpu:0")
    case.check(code == 0 and "warning" not in err, f"a scratch that fits: exit {code}, {err!r}")
    code, out, err = fixture.run("run", scratch, "--kernel", "k", "--global", "64", "--local", "64",
                                 "--arg", "buf:float:64:iota", "--arg", "local:float:16",
                                 "--device", "cpu:0")
    case.check(code == 0 and "anygpu: warning: --arg local:float:16 (argument 1) holds 16 elements, fewer than "
               "the 64 work-items" in err, f"a small scratch: exit {code}, stderr {err!r}")
    missing = os.path.join(fixture.work, "missing.bin")
    code, _, err = fixture.run(*base, "--arg", f"buf:float:8:file={missing}", "--arg",
                               "buf:float:8", "--arg", "buf:float:8", "--arg", "uint:8")
    case.check(code == 1 and "cannot read" in err, f"a missing input file: exit {code}: {err}")


CASES = [
    test_json_keys,
    test_text_matrix,
    test_every_kernel_listed,
    test_usage_errors,
    test_kernels_dir_unchanged_passes,
    test_kernels_dir_missing_file_fails,
    *[planted_bug_case(bug) for bug in PLANTED_BUGS],
    test_run_compare_agrees,
    test_run_compare_reports_mismatch,
    test_run_compare_tolerances,
    test_run_fp_contract_off,
    test_run_backend_macros,
    test_run_inputs_and_outputs,
    test_run_usage_errors,
]


def run_suite(binary):
    """anygpu test --size small on every device, its output shown; exit 77
    when every case was skipped (no device could build a kernel)."""
    env = {k: v for k, v in os.environ.items() if k != "ANYGPU_DEVICE"}
    result = subprocess.run([binary, "test", "--size", "small", "--json"], stdout=subprocess.PIPE,
                            env=env, timeout=COMMAND_TIMEOUT_S)
    text = subprocess.run([binary, "test", "--size", "small", "--seed", "0"],
                          stdout=subprocess.PIPE, env=env, timeout=COMMAND_TIMEOUT_S)
    print(text.stdout.decode("utf-8", "replace"), end="")
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        print("anygpu test --json printed no JSON")
        return 1
    print(f"(and with seed {report['seed']}: {report['passed']} passed, {report['failed']} failed, "
          f"{report['skipped']} skipped)")
    if result.returncode != 0 or text.returncode != 0 or report["failed"]:
        return 1
    return 77 if report["passed"] == 0 else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", help="the built anygpu executable")
    parser.add_argument("kernels_dir", nargs="?", help="tools/suite in the source tree")
    parser.add_argument("--suite", action="store_true",
                        help="only run anygpu test on every device (exit 77 if all skipped)")
    options = parser.parse_args()
    if options.suite:
        return run_suite(os.path.abspath(options.binary))
    if not options.kernels_dir:
        parser.error("kernels_dir is required")
    fixture = Fixture(os.path.abspath(options.binary), os.path.abspath(options.kernels_dir))
    try:
        return run_cases(CASES, fixture, options)
    finally:
        shutil.rmtree(fixture.work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
