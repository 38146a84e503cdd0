#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The issue's acceptance, literally: `anygpu compile --target cuda` output
for every corpus kernel compiles with NVRTC for sm_90 (a cubin each, checked
by test_cuda_compile --files)."""
import pathlib
import re
import subprocess
import sys
import tempfile


def header(path, key):
    for line in path.read_text().splitlines():
        if not line.startswith("//"):
            break
        m = re.match(r"//\s*@" + key + r"\s+(.*)", line)
        if m:
            yield m.group(1).strip()


def main():
    anygpu, compiler, corpus = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    failed = 0
    outputs = []
    work = pathlib.Path(tempfile.mkdtemp(prefix="agpu_cuda_cli_"))
    kernels = sorted((corpus / "valid").glob("*.cl"))
    for path in kernels:
        options = []
        for opt in header(path, "options"):
            options += opt.split()
        if "fp16" in list(header(path, "requires")):
            options.append("--fp16")
        out = work / (path.stem + ".cu")
        result = subprocess.run([anygpu, "compile", str(path), "--target", "cuda", *options,
                                 "-o", str(out)], capture_output=True, text=True, timeout=60)
        if result.returncode != 0 or not out.exists():
            failed += 1
            print(f"FAIL anygpu compile --target cuda {path.name}: {result.stderr.strip()[:500]}")
        else:
            outputs.append(str(out))
    print(f"anygpu compile --target cuda: {len(outputs)} of {len(kernels)} corpus kernels")
    result = subprocess.run([compiler, "--files", *outputs], capture_output=True, text=True,
                            timeout=850)
    print(result.stdout.strip())
    if result.returncode == 77:
        return 77
    if result.returncode != 0:
        failed += 1
    if len(kernels) < 50:
        failed += 1
        print(f"FAIL only {len(kernels)} corpus kernels found in {corpus}/valid")
    print(f"{len(outputs) if not failed else 0} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
