#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The GPU sgemm statically for the H100/H200 (sm_90), issue 22: each shape
of tools/bench/bench_sgemm_gpu.h that `anygpu bench` tunes on GPU devices
(listed by `test_sgemm_gpu --shapes`) is
translated by `anygpu compile --target cuda`, compiled to PTX by NVRTC with
the CUDA backend's options, and assembled by `ptxas -v -arch=sm_90`; from
ptxas's report of sgemm_gpu it asserts:
  - no register spills: 0 bytes spill stores and 0 bytes spill loads, and
    no stack frame;
  - at most 128 registers per thread, so that two work-groups of 256
    work-items fit one SM's 65536 registers;
  - shared memory per block within 48 KiB (the static limit) and equal to
    the shape's double-buffered tiles, 2 BK (BM + BN) floats (a check that
    the report was read, not only that ptxas ran).
Skipped (exit 77, saying why) where NVRTC or ptxas is absent.

Usage: test_sgemm_ptxas.py ANYGPU TEST_SGEMM_GPU BENCH_SGEMM_CL"""
import ctypes
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAX_REGISTERS = 128
MAX_SHARED = 48 * 1024
SM_REGISTERS = 65536


def cuda_dirs():
    dirs = [os.environ.get(v) for v in ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT")]
    return [d for d in dirs if d] + ["/usr/local/cuda", "/opt/cuda"]


def find_nvrtc():
    names = []
    for d in cuda_dirs():
        for sub in ("lib64", "lib", "targets/x86_64-linux/lib"):
            names += sorted(glob.glob(os.path.join(d, sub, "libnvrtc.so*")), reverse=True)
    names += ["libnvrtc.so"] + ["libnvrtc.so.%d" % v for v in range(13, 10, -1)]
    for name in names:
        if "builtins" in name or "alt" in os.path.basename(name):
            continue
        try:
            return ctypes.CDLL(name), name
        except OSError:
            pass
    return None, None


def find_ptxas():
    found = shutil.which("ptxas")
    if found:
        return found
    for d in cuda_dirs():
        path = os.path.join(d, "bin", "ptxas")
        if os.access(path, os.X_OK):
            return path
    return None


def nvrtc_ptx(nvrtc, source, name):
    prog = ctypes.c_void_p()
    check = lambda what, rc: rc == 0 or sys.exit("%s failed: NVRTC error %d" % (what, rc))
    check("nvrtcCreateProgram",
          nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None))
    # The CUDA backend's options (backends/cuda/cuda_nvrtc.c), for sm_90's PTX.
    opts = [b"--gpu-architecture=compute_90", b"-std=c++17", b"--diag-suppress=177,550"]
    rc = nvrtc.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value + 1)
    nvrtc.nvrtcGetProgramLog(prog, log)
    if rc != 0:
        sys.exit("NVRTC failed to compile %s (error %d):\n%s" % (name, rc, log.value.decode()))
    check("nvrtcGetPTXSize", nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size)))
    ptx = ctypes.create_string_buffer(size.value + 1)
    check("nvrtcGetPTX", nvrtc.nvrtcGetPTX(prog, ptx))
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value


def ptxas_report(text, function):
    """ptxas -v's figures for one function: registers, spill stores and
    loads, stack frame and shared memory in bytes; None where absent."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines)
                  if re.search(r"Compiling entry function '%s' for 'sm_90'" % function, l)), None)
    if start is None:
        return None
    block = "\n".join(lines[start:start + 6])
    frame = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", block)
    used = re.search(r"Used (\d+) registers", block)
    smem = re.search(r"(\d+) bytes smem", block)
    if not (frame and used and smem):
        return None
    return {"registers": int(used.group(1)), "stack": int(frame.group(1)),
            "spill_stores": int(frame.group(2)), "spill_loads": int(frame.group(3)),
            "smem": int(smem.group(1))}


def self_test():
    """The parser on a report as CUDA 13's ptxas writes it, and on one with
    spills, so that a change of format fails here rather than passing."""
    sample = ("ptxas info    : Compiling entry function 'sgemm_gpu' for 'sm_90'\n"
              "ptxas info    : Function properties for sgemm_gpu\n"
              "    8 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\n"
              "ptxas info    : Used 255 registers, used 1 barriers, 16384 bytes smem\n")
    r = ptxas_report(sample, "sgemm_gpu")
    assert r == {"registers": 255, "stack": 8, "spill_stores": 12, "spill_loads": 16,
                 "smem": 16384}, r
    assert ptxas_report(sample, "sgemm_other") is None
    return problems(r, 256, 16384) != []


def problems(r, threads, expected_smem):
    out = []
    if r["spill_stores"] or r["spill_loads"]:
        out.append("spills: %d bytes stored, %d loaded" % (r["spill_stores"], r["spill_loads"]))
    if r["stack"]:
        out.append("a stack frame of %d bytes" % r["stack"])
    if r["registers"] > MAX_REGISTERS:
        out.append("%d registers per thread (bound %d)" % (r["registers"], MAX_REGISTERS))
    if r["registers"] * threads * 2 > SM_REGISTERS:
        out.append("two work-groups of %d need %d registers (an SM has %d)"
                   % (threads, 2 * r["registers"] * threads, SM_REGISTERS))
    if r["smem"] > MAX_SHARED:
        out.append("%d bytes of shared memory per block (bound %d)" % (r["smem"], MAX_SHARED))
    if r["smem"] != expected_smem:
        out.append("%d bytes of shared memory, the tiles take %d" % (r["smem"], expected_smem))
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    anygpu, shapes_tool, source = sys.argv[1:]
    if not self_test():
        print("FAIL: the report parser's self-test accepted a report with spills")
        return 1
    nvrtc, nvrtc_path = find_nvrtc()
    ptxas = find_ptxas()
    if not nvrtc or not ptxas:
        print("skipped: %s not found (looked on PATH, in $CUDA_PATH, $CUDA_HOME, /usr/local/cuda)"
              % " and ".join(w for w, f in (("NVRTC (libnvrtc.so)", nvrtc), ("ptxas", ptxas)) if not f))
        return 77
    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
    print("NVRTC %s; %s" % (nvrtc_path, (version.strip().splitlines() or ["?"])[-1]))
    shapes = subprocess.run([shapes_tool, "--shapes"], capture_output=True, text=True, check=True)
    failed = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for line in shapes.stdout.splitlines():
            name, devices, threads, *options = line.split()
            if devices != "gpu":
                print("     %-16s tuned on CPU devices only: not checked" % name)
                continue
            defines = dict(o[2:].split("=") for o in options)
            bm, bn, bk = (int(defines["GPU_" + k]) for k in ("BM", "BN", "BK"))
            expected_smem = 2 * bk * (bm + bn) * 4
            cu = os.path.join(tmp, name + ".cu")
            args = [anygpu, "compile", "--target", "cuda", "-o", cu, source]
            for o in options:
                args += ["-D", o[2:]]
            subprocess.run(args, check=True)
            with open(cu) as f:
                ptx = nvrtc_ptx(nvrtc, f.read(), name + ".cu")
            ptx_path = os.path.join(tmp, name + ".ptx")
            with open(ptx_path, "wb") as f:
                f.write(ptx)
            run = subprocess.run([ptxas, "-v", "-arch=sm_90", "-o", os.path.join(tmp, name + ".cubin"),
                                  ptx_path], capture_output=True, text=True)
            report = ptxas_report(run.stdout + run.stderr, "sgemm_gpu")
            if run.returncode != 0 or report is None:
                print("FAIL %s: ptxas exit %d, no report for sgemm_gpu:\n%s"
                      % (name, run.returncode, run.stdout + run.stderr))
                failed += 1
                continue
            wrong = problems(report, int(threads), expected_smem)
            print("%-4s %-16s %3d registers, %d/%d bytes spilled, %5d bytes smem, %s work-items"
                  % ("FAIL" if wrong else "ok", name, report["registers"], report["spill_stores"],
                     report["spill_loads"], report["smem"], threads))
            for w in wrong:
                print("     " + w)
            failed += bool(wrong)
            checked += 1
    if checked == 0 and failed == 0:
        print("FAIL: no shapes listed by %s --shapes" % shapes_tool)
        return 1
    print("%d shapes within bounds, %d not" % (checked - failed + 0, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
