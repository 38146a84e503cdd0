#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""anygpu run at sizes past 32 and 64 bits (issue 33), end to end.

Usage: test_run_sizes.py ANYGPU
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import CommandFixture, main_with_fixture  # noqa: E402

COMMAND_TIMEOUT_S = 300

TOUCH = """__kernel void touch(__global float *a, __local float *t) {
  t[get_local_id(0)] = 1.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  a[get_global_id(0)] = t[0];
}
"""

# 64-bit size_t arithmetic (issue 33): on vulkan:0 size_t was 32-bit, so
# 4294967296UL became 0u, (size_t)2^33 0 and g - 1 for g = 0 4294967295.
SIZES = """__kernel void sizes(__global ulong *out, ulong big) {
  size_t g = get_global_id(0);
  size_t s = (size_t)big + g * 0x100000000UL;
  ptrdiff_t d = (ptrdiff_t)g - 3;
  out[g] = (s >= 4294967296UL ? s : 0) ^ (size_t)d ^ ((g - 1) * 4294967311UL) ^ sizeof(size_t);
}
"""


def sizes_expected(n, big):
    mask = (1 << 64) - 1
    values = []
    for g in range(n):
        s = (big + g * (1 << 32)) & mask
        d = (g - 3) & mask
        values.append((s if s >= 1 << 32 else 0) ^ d ^ (((g - 1) * 4294967311) & mask) ^ 8)
    return values


def test_run_count_times_size_overflows(fixture, case, options):
    """buf:float:4611686018427387904 is 2^64 bytes: count x size wrapped to
    a small allocation and the fill ran to count (a heap overflow). Now a
    usage error naming the limit; a count that fits but cannot be had is
    'out of host memory', never a crash."""
    source = fixture.write("touch.cl", TOUCH)
    base = ("run", source, "--kernel", "touch", "--global", "4", "--local", "4", "--device",
            "cpu:0")
    for spec, size in (("buf:float:4611686018427387904", "float"),
                       ("buf:double:2305843009213693952", "double"),
                       ("buf:ulong:18446744073709551615", "ulong")):
        code, out, err = fixture.run(*base, "--arg", spec, "--arg", "local:float:4")
        case.check(code == 2 and f"elements of {size} are more than 2^64 - 1 bytes" in err
                   and err.count("\n") == 1,
                   f"--arg {spec}: exit {code}, expected 2: {err!r}")
    code, out, err = fixture.run(*base, "--arg", "buf:float:4", "--arg",
                                 "local:float:4611686018427387904")
    case.check(code == 2 and "more than 2^64 - 1 bytes" in err,
               f"--arg local:float:2^62: exit {code}, expected 2: {err!r}")
    # fits size_t, not memory: a clear error, exit 1 (under ASan, malloc
    # returns NULL for it as it does elsewhere, instead of aborting)
    env = dict(fixture.env)
    env["ASAN_OPTIONS"] = ":".join(filter(None, (env.get("ASAN_OPTIONS"),
                                                 "allocator_may_return_null=1")))
    code, out, err = fixture.run(*base, "--arg", "buf:float:4611686018427387903", "--arg",
                                 "local:float:4", env=env)
    case.check(code == 1 and "out of host memory" in err,
               f"--arg buf:float:2^62-1: exit {code}, expected 1: {err!r}")
    # 4 GiB + 64 bytes of local memory: refused by the launch, not truncated
    code, out, err = fixture.run(*base, "--arg", "buf:float:4", "--arg", "local:float:1073741840")
    case.check(code == 1 and "asks for 4294967360 bytes of local memory" in out,
               f"--arg local:float:1073741840: exit {code}, expected 1:\n{out}{err}")



def test_run_size_t_64bit_compare(fixture, case, options):
    """The acceptance line: anygpu run of a kernel doing 64-bit size_t
    arithmetic with --all-devices --compare agrees on every device, and
    each device's output is the right one."""
    source = fixture.write("sizes.cl", SIZES)
    out_dir = os.path.join(fixture.work, "sizes")
    big = 1 << 33
    code, out, err = fixture.run("run", source, "--kernel", "sizes", "--global", "256", "--local",
                                 "64", "--arg", "buf:ulong:256", "--arg", f"ulong:{big}",
                                 "--all-devices", "--compare", "--out", out_dir)
    case.check(code == 0 and "All devices agree." in out, f"exit {code}: {err.strip()}\n{out}")
    ran = [line.split()[0] for line in out.splitlines() if " ran in " in line]
    case.check(len(ran) >= 1, f"no device ran it:\n{out}")
    expected = sizes_expected(256, big)
    for selector in ran:
        path = os.path.join(out_dir, f"{selector.replace(':', '-')}.0.out.bin")
        if not case.check(os.path.exists(path), f"{selector}: no output file {path}"):
            continue
        with open(path, "rb") as file:
            values = list(struct.unpack("<256Q", file.read()))
        wrong = [i for i in range(256) if values[i] != expected[i]]
        case.check(not wrong, f"{selector}: {len(wrong)} wrong, first out[{wrong[0] if wrong else 0}]"
                   f" = {values[wrong[0]] if wrong else 0}, expected "
                   f"{expected[wrong[0]] if wrong else 0}")
    print(f"     ran and agreed on: {', '.join(ran)}")


CASES = [
    test_run_count_times_size_overflows,
    test_run_size_t_64bit_compare,
]


def main():
    return main_with_fixture(CASES, __doc__.strip().splitlines()[-1],
                             lambda binary: CommandFixture(binary, "anygpu-run-sizes-",
                                                           timeout=COMMAND_TIMEOUT_S))


if __name__ == "__main__":
    sys.exit(main())
