# SPDX-License-Identifier: Apache-2.0
import os

import numpy as np
import pytest

import anygpu

SELECTORS = [d["selector"] for d in anygpu.devices()]
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(params=SELECTORS)
def dev(request):
    with anygpu.device(request.param) as d:
        yield d


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


VADD = """
__kernel void vadd(__global const float* a, __global const float* b,
                   __global float* c, uint n) {
  size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
"""
