#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/realworld/agree.py's own logic, without the real-world sources:
the comparison of two runs of the reference (buffers_differ: numpy.allclose's
rule with --compare's default tolerance, NaN equal to NaN, integers bit for
bit) and the inputs its HINTS give the kernels that need an invariant (the
radix sorts' scanned offsets give every key a place of its own; a B+ tree
node's keys are in order)."""
import array
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "scripts" / "realworld"))
import agree  # noqa: E402

failures = 0


def check(condition, what):
    global failures
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures += 1


def floats(values):
    return array.array("f", values).tobytes()


def ints(values):
    return array.array("I", values).tobytes()


def comparisons():
    same = floats([1.0, 2.0, float("nan")])
    check(agree.buffers_differ(same, same, "float") == "", "equal bytes agree")
    check(agree.buffers_differ(floats([100.0, 1.0]), floats([100.005, 1.0]), "float") == "",
          "floats within rtol 1e-4 of the largest agree")
    differ = agree.buffers_differ(floats([100.0, 1.0]), floats([100.0, 1.5]), "float")
    check(differ.startswith("1 element; first at index 1: 1.0 then 1.5"),
          f"floats beyond the tolerance differ ({differ})")
    check(agree.buffers_differ(floats([float("nan")]), floats([float("nan")]), "float") == "",
          "NaN agrees with NaN")
    check(agree.buffers_differ(floats([float("nan")]), floats([0.0]), "float") != "",
          "NaN differs from a number")
    check(agree.buffers_differ(ints([7, 8]), ints([7, 9]), "uint").startswith("1 element;"),
          "integers differ bit for bit")
    check(agree.buffers_differ(ints([7]), ints([7, 9]), "uint") == "4 bytes against 8",
          "sizes differ")


def expr_buffer(spec):
    _, base, n, expr = spec.split(":", 3)
    return [eval(expr, {"i": i}) for i in range(int(n))]


def places(keys, offsets, groups, per_group, digit):
    """Where a stable scatter by digit puts each key, given offsets[d *
    groups + g]: the offset of digit d in group g plus the keys of that
    digit before it in the group."""
    out = []
    for g in range(groups):
        seen = {}
        for k in keys[g * per_group:(g + 1) * per_group]:
            d = digit(k)
            out.append(offsets[d * groups + g] + seen.get(d, 0))
            seen[d] = seen.get(d, 0) + 1
    return out


def sort_hints():
    for path in ("mri-gridding/src/opencl_base/sort.cl", "mri-gridding/src/opencl_nvidia/sort.cl"):
        hint = agree.hints_for("parboil/benchmarks/" + path, "splitRearrange")
        keys, histo = expr_buffer(hint["args"]["keys_i"]), expr_buffer(hint["args"]["histo"])
        groups = hint["global"][0] // hint["local"][0]
        n = int(hint["args"]["numElems"].split(":")[1])
        check(n == len(keys) == groups * 4 * 256, f"{path}: one key a place, 4 a work-item")
        block = [[k % 16 for k in keys[g * 1024:(g + 1) * 1024]] for g in range(groups)]
        check(all(b == sorted(b) for b in block), f"{path}: each group's keys sorted by digit")
        where = places(keys, histo, groups, 1024, lambda k: k % 16)
        check(sorted(where) == list(range(n)), f"{path}: the places are a permutation")
    hint = agree.hints_for("shoc/src/opencl/level1/sort/sort.cl", "bottom_scan")
    keys, isums = expr_buffer(hint["args"]["in"]), expr_buffer(hint["args"]["isums"])
    n = int(hint["args"]["n"].split(":")[1])
    groups = agree.LAUNCH[1][0][0] // agree.LAUNCH[1][1][0]
    where = places(keys[:n], isums, groups, n // groups, lambda k: k % 16)
    check(sorted(where) == list(range(n)), "SHOC bottom_scan: the places are a permutation")
    check(agree.hints_for("shoc/src/opencl/level1/scan/scan.cl", "bottom_scan") == {},
          "the hint is for sort.cl's bottom_scan only")


def btree_hint():
    hint = agree.hints_for("rodinia/opencl/b+tree/kernel/kernel_gpu_opencl.cl", "findK")
    expr = hint["fields"]["knodesD"]["keys"]
    keys = [eval(expr, {"i": 3, "j": j}) for j in range(257)]
    check(all(a < b for a, b in zip(keys, keys[1:])), "b+tree findK: a node's keys ascend")
    # every key in [0, INT_HI] lies between exactly one pair keys[t], keys[t + 1]
    lanes = agree.LAUNCH[1][1][0]
    check(all(sum(keys[t] <= k < keys[t + 1] for t in range(lanes)) == 1
              for k in range(agree.INT_HI + 1)), "b+tree findK: one work-item finds each key")


def main():
    comparisons()
    sort_hints()
    btree_hint()
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
