# SPDX-License-Identifier: Apache-2.0
"""Every error path of a launch and a build: Python exceptions, never a crash."""
import numpy as np
import pytest

import anygpu
from conftest import VADD


@pytest.fixture
def vadd(dev):
    return dev.program(VADD).kernel("vadd")


@pytest.fixture
def bufs(dev):
    return [dev.empty(64, np.float32) for _ in range(3)]


def test_wrong_argument_count(vadd, bufs):
    with pytest.raises(anygpu.InvalidLaunchError, match="takes 4 arguments"):
        vadd(64, None, *bufs)


@pytest.mark.parametrize("n, word", [(np.float32(64), "float32"), (np.int64(64), "int64"),
                                     (64.0, "float"), (-1, "does not fit"),
                                     (1 << 40, "does not fit"), (True, "bool"), ("64", "str")])
def test_wrong_scalar(vadd, bufs, n, word):
    with pytest.raises(anygpu.InvalidLaunchError, match=word) as e:
        vadd(64, None, *bufs, n)
    assert "argument 3 ('n', uint)" in e.value.message
    assert e.value.status_name == "AGPU_ERROR_INVALID_LAUNCH"


def test_buffer_of_wrong_dtype(dev, vadd, bufs):
    with pytest.raises(anygpu.InvalidLaunchError, match="int32"):
        vadd(64, None, bufs[0], dev.empty(64, np.int32), bufs[2], 64)


def test_ndarray_where_buffer(vadd, bufs):
    with pytest.raises(anygpu.InvalidLaunchError, match="to_device"):
        vadd(64, None, np.zeros(64, np.float32), *bufs[1:], 64)


def test_released_buffer_argument(vadd, bufs):
    bufs[2].release()
    with pytest.raises(anygpu.InvalidHandleError, match="released"):
        vadd(64, None, *bufs, 64)


def test_buffer_of_another_device(dev, vadd, bufs):
    other = [s for s in (d["selector"] for d in anygpu.devices()) if s != dev.selector]
    if not other:
        pytest.skip("one device only")
    with anygpu.device(other[0]) as odev:
        with pytest.raises(anygpu.InvalidLaunchError, match="is on"):
            vadd(64, None, odev.empty(64, np.float32), *bufs[1:], 64)


def test_keywords(vadd, bufs):
    with pytest.raises(anygpu.InvalidLaunchError, match="no parameter 'm'"):
        vadd(64, None, *bufs, m=64)
    with pytest.raises(anygpu.InvalidLaunchError, match="missing n"):
        vadd(64, None, *bufs[:2], c=bufs[2])
    with pytest.raises(anygpu.InvalidLaunchError, match="given twice"):
        vadd(64, None, *bufs, 64, a=bufs[0])


def test_local_memory_argument(dev, bufs):
    k = dev.program("__kernel void f(__global float* o, __local float* s) "
                    "{ s[get_local_id(0)] = 1; o[get_global_id(0)] = s[0]; }").kernel("f")
    with pytest.raises(anygpu.InvalidLaunchError, match="LocalMemory"):
        k(64, 64, bufs[0], 256)
    with pytest.raises(anygpu.AnygpuError):
        k(64, 64, bufs[0], anygpu.LocalMemory(1 << 40))


@pytest.mark.parametrize("g, l", [(0, None), ((64, 2, 2, 2), None), (65, 64), ((64, 2), 64),
                                  ("64", None)])
def test_bad_geometry(vadd, bufs, g, l):
    with pytest.raises(anygpu.AnygpuError):
        vadd(g, l, *bufs, 64)


def test_kernel_not_found(dev):
    with pytest.raises(anygpu.NotFoundError, match="has no kernel 'nope'; it has: vadd"):
        dev.program(VADD).kernel("nope")


def test_build_error_diagnostics(dev):
    src = "__kernel void f(__global float* o) {\n  o[0] = undeclared_thing;\n}\n"
    with pytest.raises(anygpu.BuildError) as e:
        dev.program(src, name="bad.cl")
    d = e.value.diagnostics[0]
    assert (d["file"], d["line"], d["severity"]) == ("bad.cl", 2, "error")
    assert d["col"] > 1 and "undeclared_thing" in e.value.message
    assert e.value.status_name == "AGPU_ERROR_BUILD_FAILED"


def test_options_and_includes(dev, tmp_path):
    (tmp_path / "k.h").write_text("#define SCALE 3.0f\n")
    prog = dev.program('#include "k.h"\n__kernel void f(__global float* o) '
                       "{ o[get_global_id(0)] = SCALE + OFFSET; }",
                       options=["-DOFFSET=1.0f"], includes=[tmp_path])
    out = dev.empty(16)
    prog.kernel("f")(16, None, out)
    assert (out.get() == 4.0).all()
    src = tmp_path / "k.cl"
    src.write_text("__kernel void g(__global int* o) { o[0] = 7 }\n")
    with pytest.raises(anygpu.BuildError) as e:
        dev.program(src)
    assert e.value.diagnostics[0]["file"].endswith("k.cl")


def test_released_program_and_kernel(dev, vadd, bufs):
    vadd.release()
    with pytest.raises(anygpu.InvalidHandleError):
        vadd(64, None, *bufs, 64)
    prog = dev.program(VADD)
    prog.release()
    with pytest.raises(anygpu.InvalidHandleError):
        prog.kernel("vadd")


def test_same_arguments_again(dev, vadd, bufs):
    a = dev.to_device(np.arange(64, dtype=np.float32))
    vadd(64, None, a, a, bufs[2], 64)
    vadd(64, None, a, a, bufs[2], 32)  # a new n is written, the buffers are kept
    np.testing.assert_array_equal(bufs[2].get()[:32], 2 * np.arange(32, dtype=np.float32))
    a.release()
    with pytest.raises(anygpu.InvalidHandleError, match="released"):
        vadd(64, None, a, a, bufs[2], 32)


OFF_BY_ONE = """
__kernel void off_by_one(__global float *out, uint n) {
  uint i = get_global_id(0);
  if (i <= n) out[i] = 7.0f;
}
"""


def test_store_past_the_end_on_cpu_is_a_kernel_fault():
    with anygpu.device("cpu:0") as d:
        k = d.program(OFF_BY_ONE).kernel("off_by_one")
        out = d.empty(1000, np.float32)
        k(1024, 64, out, 1000)
        with pytest.raises(anygpu.KernelFaultError, match="wrote past the end of buffer 'out'"):
            d.finish()
        k(1024, 64, out, 999)  # in bounds: the canaries were restored
        d.finish()
        assert (out.get() == 7.0).all()
