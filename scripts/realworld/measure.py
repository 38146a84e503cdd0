#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds every real-world kernel file (scripts/realworld/extract.sh) through
anygpu on opencl:0, cpu:0 and vulkan:0, through `anygpu compile --target cuda`
+ NVRTC (tests/test_cuda_compile --files) and `--target hip` + hiprtc for
gfx90a (tests/test_hip_cli_compile --files), and through the driver's own
compiler on opencl:0 (the baseline); prints a line per file and the shares.

    scripts/realworld/measure.py SRC BUILD [--json OUT]

SRC is extract.sh's output, BUILD an anygpu build directory (build_one.c is
compiled against its libanygpu; see docs/kernel-language.md, "Real-world
kernels"). Options per file come from options.json beside this
script ({src} stands for SRC), else -DSINGLE_PRECISION for SHOC files that
use it."""
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
# "portable": opencl:0 with -Werror=portable, the translator's verdict (plain
# opencl:0 passes a source it refuses on to the driver, so it builds what
# "native" builds)
TARGETS = ["native", "opencl:0", "portable", "cpu:0", "vulkan:0", "cuda", "hip"]


def options_for(path, src, table):
    rel = str(path.relative_to(src))
    if rel in table:
        return [o.replace("{src}", str(src)) for o in table[rel]]
    if rel.startswith("shoc/") and "SINGLE_PRECISION" in path.read_text(errors="replace"):
        return ["-DSINGLE_PRECISION"]
    return []


def run(command, env=None):
    done = subprocess.run(command, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, lines[0] if lines else ""


def measure(path, src, build, table, one):
    options = options_for(path, src, table)
    result = {"file": str(path.relative_to(src)), "options": options}
    code, line = run([one, "opencl:0", str(path), *options, "-I", str(path.parent)],
                     {"NATIVE": "1"})
    result["native"] = "OK" if code == 0 else line
    for device in ["opencl:0", "cpu:0", "vulkan:0"]:
        code, line = run([one, device, str(path), *options])
        result[device] = "OK" if code == 0 else line
    code, line = run([one, "opencl:0", str(path), *options, "-Werror=portable"])
    result["portable"] = "OK" if code == 0 else line
    with tempfile.TemporaryDirectory() as work:
        cu = pathlib.Path(work) / "k.cu"
        code, line = run([str(build / "tools/anygpu"), "compile", str(path), "--target", "cuda",
                          *options, "-o", str(cu)])
        if code == 0:
            code, line = run([str(build / "tests/test_cuda_compile"), "--files", str(cu)])
            line = "NVRTC: " + line
        result["cuda"] = "OK" if code == 0 else line
        hip = pathlib.Path(work) / "k.hip"
        code, line = run([str(build / "tools/anygpu"), "compile", str(path), "--target", "hip",
                          *options, "-o", str(hip)])
        if code == 0:
            code, line = run([str(build / "tests/test_hip_cli_compile"), "--files", str(hip)])
            line = "hiprtc: " + line
        result["hip"] = "OK" if code == 0 else line
    return result


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, build = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    table = json.loads((HERE / "options.json").read_text())
    files = sorted(src.rglob("*.cl"))
    work = tempfile.mkdtemp(prefix="agpu_realworld_")
    one = os.path.join(work, "build_one")
    subprocess.run([os.environ.get("CC", "cc"), "-O1", "-I", str(HERE.parent.parent / "api"),
                    str(HERE / "build_one.c"), "-L", str(build), "-lanygpu",
                    "-Wl,-rpath," + str(build), "-o", one], check=True)
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as pool:
        results = list(pool.map(lambda p: measure(p, src, build, table, one), files))
    if "--json" in sys.argv:
        pathlib.Path(sys.argv[sys.argv.index("--json") + 1]).write_text(
            json.dumps(results, indent=1))
    for r in results:
        print(r["file"], " ".join(f"{t}={'ok' if r[t] == 'OK' else 'X'}" for t in TARGETS))
    print()
    for t in TARGETS:
        ok = sum(r[t] == "OK" for r in results)
        part = sum(r[t].startswith("PART") for r in results)
        print(f"{t:10} {ok}/{len(results)} = {100 * ok / len(results):.1f}%"
              + (f" (and {part} with some kernels refused alone)" if part else ""))


if __name__ == "__main__":
    main()
