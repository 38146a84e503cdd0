#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks one native baseline program of bench/native/ against the protocol
that `anygpu bench` relies on (bench/native/README.md).

    python3 test_native_bench.py PATH/TO/native_<backend>

Runs it for real with a small size: every stdout line must be a JSON object
with exactly benchmark, value and unit, the benchmarks and units this program
promises, positive finite values; --bench must restrict the output; a device
that does not exist must exit 77 with a reason, bad arguments 1. When the
program itself exits 77 (no driver or device on this machine) the test is
skipped with its reason. Prints "N passed, N failed, N skipped"; exits 1 on
any failure, 77 when everything was skipped.
"""

import json
import math
import os
import subprocess
import sys

# What each program measures, and the --size it is run with here.
PROGRAMS = {
    "native_cpu": ({"triad": "GB/s", "launch_roundtrip": "us"}, 1 << 16),
    "native_opencl": ({"triad": "GB/s", "launch_roundtrip": "us"}, 1 << 16),
    "native_vulkan": ({"triad": "GB/s", "launch_roundtrip": "us"}, 1 << 16),
    "native_cuda": ({"triad": "GB/s", "launch_roundtrip": "us"}, 1 << 16),
    "native_hip": ({"triad": "GB/s", "launch_roundtrip": "us"}, 1 << 16),
    "native_cublas": ({"sgemm": "GFLOP/s"}, 128),
    "native_openblas": ({"sgemm": "GFLOP/s"}, 128),
    "native_clblast": ({"sgemm": "GFLOP/s"}, 128),
}


class Skip(Exception):
    pass


def run(program, *args):
    done = subprocess.run([program, *args], capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr.strip()


def parse_lines(stdout):
    """The JSON lines, each checked for the protocol's keys and types."""
    results = {}
    for line in stdout.splitlines():
        record = json.loads(line)
        if not isinstance(record, dict) or set(record) != {"benchmark", "value", "unit"}:
            raise AssertionError(f"not a protocol object: {line}")
        value = record["value"]
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise AssertionError(f"value not positive and finite: {line}")
        if record["benchmark"] in results:
            raise AssertionError(f"{record['benchmark']} reported twice")
        results[record["benchmark"]] = record
    return results


def check_all(program, expected, size):
    rc, out, err = run(program, "--device", "0", "--size", str(size), "--iterations", "3")
    if rc == 77:
        if not err:
            raise AssertionError("exit 77 without a reason on stderr")
        raise Skip(err.splitlines()[-1])
    if rc != 0:
        raise AssertionError(f"exit {rc}: {err}")
    results = parse_lines(out)
    if set(results) != set(expected):
        raise AssertionError(f"benchmarks {sorted(results)}, expected {sorted(expected)}")
    for name, unit in expected.items():
        if results[name]["unit"] != unit:
            raise AssertionError(f"{name} in {results[name]['unit']}, expected {unit}")
    return results


def check_restricted(program, expected, size):
    first = sorted(expected)[0]
    alias = "roundtrip" if first == "launch_roundtrip" else first
    rc, out, err = run(program, "--size", str(size), "--iterations", "2", "--bench", alias)
    if rc != 0:
        raise AssertionError(f"--bench {alias}: exit {rc}: {err}")
    if set(parse_lines(out)) != {first}:
        raise AssertionError(f"--bench {alias} printed {out!r}")


def check_missing_device(program):
    rc, out, err = run(program, "--device", "999", "--iterations", "2")
    if rc != 77 or not err or out:
        raise AssertionError(f"--device 999: exit {rc}, stdout {out!r}, stderr {err!r}")


def check_bad_arguments(program):
    for args in (["--bench", "nonsense"], ["--size"], ["--iterations", "0"], ["--frobnicate"]):
        rc, out, err = run(program, *args)
        if rc != 1 or not err or out:
            raise AssertionError(f"{args}: exit {rc} (expected 1 with a message)")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    program = sys.argv[1]
    name = os.path.basename(program)
    if name not in PROGRAMS:
        print(f"unknown program {name}", file=sys.stderr)
        return 2
    expected, size = PROGRAMS[name]
    cases = [
        ("bad arguments exit 1", lambda: check_bad_arguments(program)),
        ("a missing device exits 77 with a reason", lambda: check_missing_device(program)),
        ("every benchmark, protocol lines", lambda: check_all(program, expected, size)),
        ("--bench restricts the output", lambda: check_restricted(program, expected, size)),
    ]
    passed = failed = skipped = 0
    available = True
    for title, case in cases:
        if not available and title == "--bench restricts the output":
            print(f"SKIP {title}: the device is unavailable")
            skipped += 1
            continue
        try:
            results = case()
            if isinstance(results, dict):
                title += ": " + ", ".join(
                    f"{r['benchmark']} {r['value']:g} {r['unit']}" for r in results.values())
            print(f"PASS {title}")
            passed += 1
        except Skip as reason:
            print(f"SKIP {title}: {reason}")
            skipped += 1
            available = False
        except (AssertionError, ValueError, subprocess.TimeoutExpired) as error:
            print(f"FAIL {title}: {error}")
            failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    if failed:
        return 1
    return 77 if not available else 0


if __name__ == "__main__":
    sys.exit(main())
