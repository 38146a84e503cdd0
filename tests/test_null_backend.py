#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The null backend through the CLI (issue 17; backends/null): with
ANYGPU_NULL_DEVICES=2 and limits from ANYGPU_NULL_LIMITS, `anygpu list --json`
lists null:0 and null:1 with those limits, the default device is never a
null one, and `anygpu run` of a kernel on null:0 is validated (a wrong
argument count is refused) and recorded; without the variable the null
backend is in no listing of missing backends.

usage: test_null_backend.py ANYGPU"""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("  FAIL " + what)


def run(binary, env, *args):
    return subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=300)


def main():
    binary = sys.argv[1]
    base = {k: v for k, v in os.environ.items() if not k.startswith("ANYGPU_NULL")}
    plain = json.loads(run(binary, base, "list", "--json").stdout)
    check(not any(d["selector"].startswith("null:") for d in plain["devices"]),
          "null devices listed without ANYGPU_NULL_DEVICES")
    check(not any(u["backend"] == "null" for u in plain["unavailable"]),
          "the null backend is listed as missing devices")
    check(any(b["name"] == "null" for b in plain["backends"]), "the null backend is not in backends")
    text = run(binary, base, "list").stdout
    check("null" not in text, "anygpu list shows the null backend without devices")

    env = dict(base, ANYGPU_NULL_DEVICES="2", ANYGPU_NULL_LIMITS="memory=67108864,local=4096,group=128")
    listed = run(binary, env, "list", "--json")
    check(listed.returncode == 0, "list --json with null devices exited %d" % listed.returncode)
    report = json.loads(listed.stdout)
    nulls = [d for d in report["devices"] if d["selector"].startswith("null:")]
    check([d["selector"] for d in nulls] == ["null:0", "null:1"], "not null:0 and null:1: %r" %
          [d["selector"] for d in nulls])
    for d in nulls:
        check(d.get("global_mem_bytes") == 67108864, "%s memory %r" % (d["selector"],
                                                                       d.get("global_mem_bytes")))
        check(d.get("local_mem_bytes") == 4096, "%s local %r" % (d["selector"],
                                                                 d.get("local_mem_bytes")))
        check(d.get("max_work_group_size") == 128, "%s group %r" % (d["selector"],
                                                                    d.get("max_work_group_size")))
    info = run(binary, env, "info", "--json")
    check(info.returncode == 0 and '"null:' not in info.stdout.split('"selector"')[1][:20],
          "the default device is a null one")

    bad = run(binary, dict(env, ANYGPU_NULL_LIMITS="speed=9"), "list")
    check("ANYGPU_NULL_LIMITS" in bad.stdout + bad.stderr, "a bad ANYGPU_NULL_LIMITS is not named")

    with tempfile.TemporaryDirectory() as root:
        kernel = os.path.join(root, "k.cl")
        with open(kernel, "w") as f:
            f.write("__kernel void k(__global float *x, uint n) {\n"
                    "  size_t i = get_global_id(0);\n  if (i < n) x[i] = 2.0f;\n}\n")
        ran = run(binary, env, "run", kernel, "--kernel", "k", "--global", "100", "--device",
                  "null:0", "--arg", "buf:float:100:fill=1", "--arg", "uint:100")
        check(ran.returncode == 0, "run on null:0 exited %d: %s" % (ran.returncode, ran.stderr))
        wrong = run(binary, env, "run", kernel, "--kernel", "k", "--global", "100", "--device",
                    "null:0", "--arg", "buf:float:100:fill=1")
        check(wrong.returncode != 0 and "2 parameters" in wrong.stdout + wrong.stderr,
              "a launch with a missing argument was not refused on null:0")
        broken = os.path.join(root, "broken.cl")
        with open(broken, "w") as f:
            f.write("__kernel void k(__global float *x) {\n  x[0] = ;\n}\n")
        built = run(binary, env, "run", broken, "--kernel", "k", "--global", "1", "--device",
                    "null:0", "--arg", "buf:float:1")
        check(built.returncode != 0 and "broken.cl:2:" in built.stdout + built.stderr,
              "a build error on null:0 has no file:line")
    print("%d passed, %d failed, 0 skipped" % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
