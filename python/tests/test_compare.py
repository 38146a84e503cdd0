# SPDX-License-Identifier: Apache-2.0
import os
import subprocess
import sys

import numpy as np
import pytest

import anygpu
from conftest import REPO, SELECTORS, VADD


def test_run_everywhere_agrees(rng):
    a, b = rng.random(1000, np.float32), rng.random(1000, np.float32)
    c = np.zeros(1000, np.float32)
    result = anygpu.run_everywhere(VADD, "vadd", [a, b, c, np.uint32(1000)])
    assert result.ok and not result.errors, str(result)
    assert set(result.outputs) == set(SELECTORS)
    assert result.reference == ("opencl:0" if "opencl:0" in SELECTORS else SELECTORS[0])
    for outs in result.outputs.values():
        np.testing.assert_array_equal(outs["c"], a + b)  # only c: a and b are const


def test_run_everywhere_finds_a_difference():
    if len(SELECTORS) < 2:
        pytest.skip("one device only")
    src = """__kernel void f(__global int* o) {
    #ifdef __ANYGPU_CPU__
      o[get_global_id(0)] = 1;
    #else
      o[get_global_id(0)] = 0;
    #endif
    }"""
    result = anygpu.run_everywhere(src, "f", [np.zeros(64, np.int32)])
    assert not result.ok and "DIFFERS" in str(result)


def test_run_everywhere_reports_build_errors():
    result = anygpu.run_everywhere("__kernel void f(__global int* o) { o[0] = x; }", "f",
                                   [np.zeros(4, np.int32)], devices="cpu:0")
    assert not result.ok and isinstance(result.errors["cpu:0"], anygpu.BuildError)


def test_allclose_rule():
    ref = np.array([1000.0, 1e-9, 0.0], np.float32)
    v = anygpu.compare_arrays(ref + np.float32(0.05), ref)  # atol = 1e-4 * 1000
    assert v["ok"] and v["atol"] == pytest.approx(0.1)
    assert not anygpu.compare_arrays(ref + np.float32(0.5), ref)["ok"]
    assert not anygpu.compare_arrays(np.array([1, 2]), np.array([1, 3]))["ok"]


@pytest.mark.parametrize("script", ["vector_add.py", "reduction_compare.py", "backend_table.py"])
def test_examples(script, tmp_path):
    path = os.path.join(REPO, "python", "examples", script)
    r = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
