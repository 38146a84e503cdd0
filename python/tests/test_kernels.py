# SPDX-License-Identifier: Apache-2.0
import numpy as np
import pytest

import anygpu
from conftest import VADD

SOURCES = """
__kernel void saxpy(__global const float* x, __global float* y, float a, uint n) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
__kernel void imix(__global const int* a, __global int* out, int k, uint n) {
  size_t i = get_global_id(0);
  if (i < n) out[i] = (a[i] * k) ^ (a[i] >> 3) + (int)i % 7;
}
__kernel void grid2d(__global float* out, uint w, uint h) {
  size_t x = get_global_id(0), y = get_global_id(1);
  if (x < w && y < h) out[y * w + x] = (float)(y * 1000 + x);
}
__kernel void block_sum(__global const float* in, __global float* partial,
                        __local float* scratch, uint n) {
  size_t lid = get_local_id(0), gid = get_global_id(0), ls = get_local_size(0);
  scratch[lid] = gid < n ? in[gid] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = ls / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
__kernel void f4(__global float4* out, float4 v) { out[get_global_id(0)] = v; }
"""


@pytest.fixture
def prog(dev):
    return dev.program(SOURCES)


def round_up(n, m):
    return (n + m - 1) // m * m


@pytest.mark.parametrize("n", [1, 1000, 1023, 4097])
def test_vadd_random_poisoned(dev, rng, n):
    k = dev.program(VADD).kernel("vadd")
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = dev.empty(n, np.float32)
    c.fill(np.nan)  # poisoned: every element must be written
    k(round_up(n, 64), 64, dev.to_device(a), dev.to_device(b), c, np.uint32(n))
    np.testing.assert_array_equal(c.get(), a + b)
    c.fill(np.nan)
    k(n, None, dev.to_device(a), dev.to_device(b), c, n)  # the library picks the group
    np.testing.assert_array_equal(c.get(), a + b)


def test_saxpy_keywords(dev, rng, prog):
    n = 777
    x, y = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    xb, yb = dev.to_device(x), dev.to_device(y)
    prog.kernel("saxpy")(round_up(n, 32), 32, x=xb, y=yb, a=np.float32(2.5), n=np.uint32(n))
    np.testing.assert_allclose(yb.get(), np.float32(2.5) * x + y, rtol=1e-6)


def test_integers_exact(dev, rng, prog):
    n = 3001
    a = rng.integers(-1 << 20, 1 << 20, n, dtype=np.int32)
    out = dev.empty(n, np.int32)
    out.fill(-1)
    prog.kernel("imix")(round_up(n, 128), 128, dev.to_device(a), out, np.int32(-7), n)
    i = np.arange(n, dtype=np.int32)
    np.testing.assert_array_equal(out.get(), (a * -7) ^ ((a >> 3) + i % 7))


def test_two_dimensions(dev, prog):
    w, h = 37, 19
    out = dev.empty((h, w), np.float32)
    out.fill(np.nan)
    prog.kernel("grid2d")((round_up(w, 8), round_up(h, 4)), (8, 4), out, w, h)
    y, x = np.mgrid[0:h, 0:w]
    np.testing.assert_array_equal(out.get(), (y * 1000 + x).astype(np.float32))


def test_local_memory_reduction(dev, rng, prog):
    n, ls = 10_000, 64
    a = rng.random(n).astype(np.float32)
    groups = round_up(n, ls) // ls
    partial = dev.empty(groups, np.float32)
    partial.fill(np.nan)
    prog.kernel("block_sum")(groups * ls, ls, dev.to_device(a), partial,
                             anygpu.LocalMemory(ls * 4), n)
    assert np.isclose(partial.get().sum(dtype=np.float64), a.sum(dtype=np.float64), rtol=1e-5)


def test_vector_argument(dev, prog):
    out = dev.empty((8, 4), np.float32)
    prog.kernel("f4")(8, None, out, np.array([1, 2, 3, 4], np.float32))
    np.testing.assert_array_equal(out.get(), np.tile(np.float32([1, 2, 3, 4]), (8, 1)))


def test_queue_and_event_timing(dev, rng):
    k = dev.program(VADD).kernel("vadd")
    n = 1 << 16
    a = dev.to_device(rng.random(n).astype(np.float32))
    c = dev.empty(n, np.float32)
    with dev.queue() as q:
        start = q.record()
        k(n, None, a, a, c, n, queue=q)
        end = q.record()
        end.wait()
        assert end.elapsed_ns(start) >= 0 and end - start >= 0
        q.finish()
        host = c.get(queue=q)
    np.testing.assert_array_equal(host, 2 * a.get())
    assert q.released and not start.released  # events go with release() or the device
