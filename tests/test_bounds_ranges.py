#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Bounds checking's group-size ranges (kernels/bounds_ranges.c), as
`anygpu compile --check` writes them: an access into a __local array that
always fits is not checked, one that the group's size bounds is checked as
`fits || check` with `fits` reading only get_local_size, and anything the
analysis cannot prove keeps its full check. test_bounds runs such kernels;
this test keeps the analysis from being lost or widened unnoticed."""
import subprocess
import sys
import tempfile

CASES = [
    # (name, body, accesses of `t` left checked, `fits` conditions)
    ("counted", "for (uint j = 0; j < 16; j++) t[j] = 1.0f;", 0, 0),
    ("one_past", "for (uint j = 0; j <= 16; j++) t[j] = 1.0f;", 1, 0),
    ("local_id", "for (uint j = 0; j < 4; j++) t[l * 4 + j] = 1.0f;", 1, 1),
    ("stepped_in_body", "for (uint j = 0; j < 16; j++) { t[j] = 1.0f; j += 1; }", 1, 0),
    ("address_taken", "uint k = 3; uint *p = &k; *p = 40; t[k] = 1.0f;", 1, 0),
    ("from_argument", "t[m] = 1.0f;", 1, 0),
    ("subtraction", "for (uint j = 1; j < 16; j++) t[j - 1] = 1.0f;", 1, 0),
]

SOURCE = """__kernel void k(__global float *out, uint m) {{
  __local float t[16];
  uint l = get_local_id(0);
  {body}
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = l;
}}
"""


def main():
    anygpu = sys.argv[1]
    failed = 0
    for name, body, checked, fits in CASES:
        with tempfile.NamedTemporaryFile("w", suffix=".cl") as f:
            f.write(SOURCE.format(body=body))
            f.flush()
            r = subprocess.run([anygpu, "compile", f.name, "--check", "--target", "opencl"],
                               capture_output=True, text=True, timeout=60)
        kernel = r.stdout[r.stdout.find("__kernel void k("):]
        # each checked access notes its site once; out's store is one of them
        got_checked = kernel.count("? __agpu_bad_site : ") - 1
        got_fits = kernel.count("get_local_size(0u)")
        ok = r.returncode == 0 and got_checked == checked and got_fits == fits
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {got_checked} checked (want {checked}), "
              f"{got_fits} fits (want {fits})")
        if not ok:
            print(r.stderr + kernel)
        failed += not ok
    print(f"{len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
