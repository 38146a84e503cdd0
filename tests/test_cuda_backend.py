#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The CUDA backend on a machine without an NVIDIA driver, end to end through
`anygpu list --json`: its reason names libcuda.so.1 and dlopen's error; with
the CUDA toolkit's stub libcuda first on LD_LIBRARY_PATH it names the stub's
path and CUDA_ERROR_STUB_LIBRARY. On a machine with a driver the first case
is skipped and the backend must list its devices with the CUDA fields."""
import glob
import json
import os
import subprocess
import sys

passed = failed = skipped = 0


def report(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


def skip(what):
    global skipped
    skipped += 1
    print("skip", what)


def cuda_entry(anygpu, env):
    result = subprocess.run([anygpu, "list", "--json"], capture_output=True, text=True,
                            timeout=60, env=env)
    listing = json.loads(result.stdout)
    for entry in listing.get("unavailable", []):
        if entry["backend"] == "cuda":
            return entry, listing
    return None, listing


def stub_directories():
    roots = [os.environ.get(name) for name in ("CUDA_HOME", "CUDA_PATH")]
    roots += ["/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-*"), reverse=True)
    found = []
    for root in filter(None, roots):
        for sub in ("lib64/stubs", "targets/x86_64-linux/lib/stubs"):
            directory = os.path.join(root, sub)
            if os.path.exists(os.path.join(directory, "libcuda.so")):
                found.append(os.path.realpath(directory))
    return found


def has_real_libcuda():
    import ctypes
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


def main():
    anygpu = sys.argv[1]
    base = dict(os.environ)
    base.pop("LD_LIBRARY_PATH", None)
    entry, listing = cuda_entry(anygpu, base)
    if has_real_libcuda():
        skip("this machine has libcuda.so.1: the no-driver reason cannot be checked")
        devices = [d for d in listing["devices"] if d["backend"] == "cuda"]
        if devices:
            d = devices[0]
            report(d["vendor_id"] == 0x10de, f"cuda device vendor: {d}")
            report(d.get("arch", "").startswith("sm_"), f"cuda device arch: {d}")
    else:
        report(entry is not None, "cuda is listed as unavailable without libcuda.so.1")
        if entry:
            reason = entry["reason"]
            report(reason.startswith("the NVIDIA driver is not installed: libcuda.so.1 not found"),
                   f"reason: {reason!r}")
            report("libcuda.so.1: cannot open shared object file" in reason,
                   f"reason lacks dlopen's error: {reason!r}")
            report(not entry["available"], f"entry: {entry}")

    stubs = stub_directories()
    if not stubs:
        skip("no stubs/libcuda.so under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda*")
    elif has_real_libcuda():
        skip("this machine has libcuda.so.1, which is found before the stub's libcuda.so")
    else:
        env = dict(base, LD_LIBRARY_PATH=stubs[0])
        entry, _ = cuda_entry(anygpu, env)
        report(entry is not None, "cuda is unavailable with the stub first")
        if entry:
            reason = entry["reason"]
            report("CUDA_ERROR_STUB_LIBRARY (34)" in reason, f"reason: {reason!r}")
            report("a build-time stub was found at run time" in reason, f"reason: {reason!r}")
            report("LD_LIBRARY_PATH" in reason, f"reason: {reason!r}")
            named = reason.split(": ")[2].split(" is the")[0] if reason.count(": ") >= 2 else ""
            report(os.path.realpath(named).startswith(stubs[0]),
                   f"reason names {named!r}, not the stub in {stubs[0]}")
        # The text listing shows the same reason on the cuda line.
        text = subprocess.run([anygpu, "list"], capture_output=True, text=True, timeout=60,
                              env=env).stdout
        line = [l for l in text.splitlines() if l.strip().startswith("cuda ")]
        report(len(line) == 1 and "CUDA_ERROR_STUB_LIBRARY" in line[0],
               f"anygpu list's cuda line: {line}")

    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else (77 if passed == 0 else 0)


if __name__ == "__main__":
    sys.exit(main())
