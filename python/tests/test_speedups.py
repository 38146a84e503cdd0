# SPDX-License-Identifier: Apache-2.0
"""The repeat launch in C (anygpu._speedups), the host memory cache of get(),
DLPack export and __cuda_array_interface__ (docs/python.md)."""
import ctypes
import gc
import os
import weakref

import numpy as np
import pytest

import anygpu
from anygpu import buffer as buffer_module
from anygpu import launch as launch_module

from conftest import VADD

AXPB = """
__kernel void axpb(__global const float* x, __global float* y, float a, float b, uint n) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + b;
}
"""


def test_extension_is_built():
    """pip install ./python builds the extension; only ANYGPU_PYTHON_LAUNCH turns
    the launch path off."""
    assert buffer_module._speedups is not None
    if not os.environ.get("ANYGPU_PYTHON_LAUNCH"):
        assert launch_module._speedups is not None


def test_repeat_launch_follows_every_change(dev, rng):
    """The same objects again launch from C; any changed argument, geometry or
    queue takes the checked road, and every result matches NumPy."""
    n = 1000
    x, x2 = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    xb, x2b, yb = dev.to_device(x), dev.to_device(x2), dev.empty(n, np.float32)
    k = dev.program(AXPB).kernel("axpb")
    a, b, nn = np.float32(rng.random()), np.float32(rng.random()), np.uint32(n)
    for _ in range(3):  # the first call remembers, the next two are repeats
        yb.fill(0)
        k(1024, 64, xb, yb, a, b, nn)
        np.testing.assert_allclose(yb.get(), a * x + b, rtol=1e-6)
    if launch_module._speedups is not None:  # the call is the C base's
        assert isinstance(k, launch_module._speedups.KernelBase)
        assert type(k).__call__ is launch_module._speedups.KernelBase.__call__
    a2 = np.float32(rng.random())
    k(1024, 64, xb, yb, a2, b, nn)  # a new scalar
    np.testing.assert_allclose(yb.get(), a2 * x + b, rtol=1e-6)
    k(1024, 64, x2b, yb, a2, b, nn)  # a new buffer
    np.testing.assert_allclose(yb.get(), a2 * x2 + b, rtol=1e-6)
    yb.fill(0)
    k(1000, None, x2b, yb, a2, b, nn)  # another geometry
    np.testing.assert_allclose(yb.get(), a2 * x2 + b, rtol=1e-6)
    yb.fill(0)
    k((1000,), None, x2b, yb, a2, b, nn)  # the same, as a tuple
    np.testing.assert_allclose(yb.get(), a2 * x2 + b, rtol=1e-6)
    for size in (512, 256, (128,), 1024):  # the geometry decides what is written
        yb.fill(0)
        k(size, 64, x2b, yb, a2, b, nn)
        k(size, 64, x2b, yb, a2, b, nn)
        m = min(n, size if isinstance(size, int) else size[0])
        np.testing.assert_allclose(yb.get()[:m], (a2 * x2 + b)[:m], rtol=1e-6)
        assert not yb.get()[m:].any()
    with dev.queue() as q:
        yb.fill(0)
        dev.finish()  # the fill is on the default queue
        k(1024, 64, x2b, yb, a2, b, nn, queue=q)
        k(1024, 64, x2b, yb, a2, b, nn, queue=q)
        q.finish()
        np.testing.assert_allclose(yb.get(), a2 * x2 + b, rtol=1e-6)
    with pytest.raises(anygpu.InvalidLaunchError):  # a wrong dtype after repeats
        k(1024, 64, x2b, yb, np.float64(1), b, nn)
    k(1024, 64, x2b, yb, a, b, nn)  # the failed launch left nothing behind
    np.testing.assert_allclose(yb.get(), a * x2 + b, rtol=1e-6)
    k(1024, 64, x=xb, y=yb, a=a2, b=b, n=nn)  # by name
    np.testing.assert_allclose(yb.get(), a2 * x + b, rtol=1e-6)


def test_repeat_launch_with_a_released_buffer_or_queue_raises(dev, rng):
    a = rng.random(256).astype(np.float32)
    ab, bb, cb = dev.to_device(a), dev.to_device(a), dev.empty(256, np.float32)
    k = dev.program(VADD).kernel("vadd")
    n = np.uint32(256)
    k(256, 64, ab, bb, cb, n)
    k(256, 64, ab, bb, cb, n)
    np.testing.assert_allclose(cb.get(), 2 * a)
    bb.release()
    with pytest.raises(anygpu.InvalidHandleError):
        k(256, 64, ab, bb, cb, n)
    q = dev.queue()
    k(256, 64, ab, ab, cb, n, queue=q)
    q.release()
    with pytest.raises(anygpu.InvalidHandleError):
        k(256, 64, ab, ab, cb, n, queue=q)
    k.release()
    with pytest.raises(anygpu.InvalidHandleError):
        k(256, 64, ab, ab, cb, n)


def test_get_reuses_host_memory_safely(dev, rng):
    """get() of large arrays reads into cached host memory; a block goes back to
    the cache only when the array and all its views are gone."""
    n = (buffer_module.host_cache.MIN_BYTES // 4) + 12345
    x, z = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    xb, zb = dev.to_device(x), dev.to_device(z)
    first = xb.get()
    np.testing.assert_array_equal(first, x)
    view = first[100:200]
    del first
    gc.collect()
    second = zb.get()  # must not land in the memory that `view` still sees
    np.testing.assert_array_equal(second, z)
    np.testing.assert_array_equal(view, x[100:200])
    del view, second
    gc.collect()
    for _ in range(3):
        got = xb.get()
        np.testing.assert_array_equal(got, x)
        got[:] = 0  # the caller owns it
        np.testing.assert_array_equal(xb.get(), x)
    shaped = dev.to_device(x[:n - n % 5].reshape(5, -1)).get()
    np.testing.assert_array_equal(shaped, x[:n - n % 5].reshape(5, -1))
    assert shaped.flags.c_contiguous and shaped.flags.writeable


def test_get_into_fresh_memory(dev, rng, monkeypatch):
    """With the host cache off, get() of a large array reads into a fresh
    mapping (_fresh_block: huge pages asked for, prefaulted); the array owns it."""
    monkeypatch.setattr(buffer_module.host_cache, "max_bytes", 0)
    n = (buffer_module.host_cache.MIN_BYTES // 8) + 777
    x = rng.random(n - n % 7).reshape(-1, 7)
    xb = dev.to_device(x)
    got = xb.get()
    np.testing.assert_array_equal(got, x)
    assert got.flags.c_contiguous and got.flags.writeable and got.dtype == np.float64
    del xb
    gc.collect()
    got[:] = 1  # still its own memory
    assert got.sum() == got.size
    block = buffer_module._fresh_block(5 << 20)
    assert block.size == 5 << 20 and block.flags.writeable and not block.any()


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.uint8, np.float64, np.bool_])
def test_dlpack(dev, rng, dtype):
    x = (rng.random((7, 9)) * 100).astype(dtype)
    buf = dev.to_device(x)
    if dev.backend != "cpu":
        assert buf.__dlpack_device__()[0] in (2, 4, 7, 10, 12)
        with pytest.raises(BufferError):
            np.from_dlpack(buf)
        np.testing.assert_array_equal(np.from_dlpack(buf, copy=True), x)
        return
    assert buf.__dlpack_device__() == (1, 0)
    view = np.from_dlpack(buf)  # the buffer's own memory
    np.testing.assert_array_equal(view, x)
    assert view.shape == x.shape and view.dtype == x.dtype
    if view.flags.writeable:  # NumPy 2 with a DLPack 1.0 capsule
        value = x[0, 0] if dtype == np.bool_ else dtype(rng.integers(1, 100))
        view[3, 4] = value
        assert buf.get()[3, 4] == value
    buf.release()  # deferred while `view` holds the memory
    assert buf.released
    np.testing.assert_array_equal(view[0], x[0])
    del view
    gc.collect()
    assert buf._exports == 0


def test_dlpack_kernel_writes_are_seen(dev, rng):
    if dev.backend != "cpu":
        pytest.skip("DLPack export is for host memory")
    a, b = rng.random(300).astype(np.float32), rng.random(300).astype(np.float32)
    ab, bb, cb = dev.to_device(a), dev.to_device(b), dev.empty(300, np.float32)
    c = np.from_dlpack(cb)
    dev.program(VADD).kernel("vadd")(300, None, ab, bb, cb, np.uint32(300))
    dev.finish()
    np.testing.assert_allclose(c, a + b)


def test_cuda_array_interface_only_on_cuda(dev):
    buf = dev.empty((4, 4), np.float32)
    if dev.backend == "cuda":
        iface = buf.__cuda_array_interface__  # the library's device address
        assert iface["shape"] == (4, 4) and iface["typestr"] == "<f4"
        assert iface["data"][0] == buffer_module._device_address(buf._h()) != 0
    else:
        assert not hasattr(buf, "__cuda_array_interface__")
        with pytest.raises(AttributeError, match="not a CUDA device"):
            buf.__cuda_array_interface__


def test_device_address(dev):
    """agpu_buffer_device_address: the host pointer that DLPack exports on the
    CPU backend, a device pointer on CUDA and HIP, refused by name on OpenCL
    and Vulkan."""
    buf = dev.empty((3, 5), np.float32)
    if dev.backend in ("opencl", "vulkan"):
        with pytest.raises(anygpu.UnsupportedError, match="no plain device address"):
            buffer_module._device_address(buf._h())
        return
    address = buffer_module._device_address(buf._h())
    assert address != 0
    if dev.backend == "cpu":
        view = np.from_dlpack(buf)
        assert view.ctypes.data == address
    buf.release()
    with pytest.raises(anygpu.InvalidHandleError):
        buf._h()


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.c_void_p),
                ("byte_offset", ctypes.c_uint64)]


def _dltensor(capsule):
    """The DLTensor at the start of an unversioned capsule's DLManagedTensor."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return _DLTensor.from_address(get(capsule, b"dltensor"))


@pytest.mark.parametrize("backend, dl_type", [("cuda", 2), ("hip", 10)])
def test_gpu_exports_with_a_fake_address(monkeypatch, backend, dl_type):
    """The CUDA and HIP roads of __dlpack__ and __cuda_array_interface__, with
    no GPU here: a CPU buffer whose device says it is CUDA or HIP, and a made-up
    device address, which nothing dereferences (the capsule is only read)."""
    if buffer_module._speedups is None:
        pytest.skip("no C extension")
    fake = 0x7F00DEAD0000
    monkeypatch.setattr(buffer_module, "_device_address", lambda handle: fake)
    with anygpu.device("cpu:0") as dev:
        buf = dev.empty((6, 7), np.float64)
        monkeypatch.setattr(dev, "info", dict(dev.info, backend=backend, index=3))
        assert buf.__dlpack_device__() == (dl_type, 3)
        if backend == "cuda":
            assert buf.__cuda_array_interface__ == {
                "shape": (6, 7), "typestr": "<f8", "data": (fake, False), "strides": None,
                "version": 3}
        else:
            assert not hasattr(buf, "__cuda_array_interface__")
        capsule = buf.__dlpack__()
        t = _dltensor(capsule)
        assert (t.data, t.device_type, t.device_id, t.ndim) == (fake, dl_type, 3, 2)
        assert (t.code, t.bits, t.lanes) == (2, 64, 1) and t.shape[0] == 6 and t.shape[1] == 7
        assert buf._exports == 1
        with pytest.raises(BufferError, match="not"):
            buf.__dlpack__(dl_device=(1, 0))
        buf.release()  # deferred while the capsule holds the memory
        assert buf.released and buf._exports == 1
        del t, capsule
        gc.collect()
        assert buf._exports == 0


SCALARS = """
__kernel void scalars(__global int* o, __global float* f, char a, uchar b, short c,
                      ushort d, int e, uint g, float x) {
  o[0] = a; o[1] = b; o[2] = c; o[3] = d; o[4] = e; o[5] = (int)g; f[0] = x;
}
"""


def test_scalars_from_c(dev):
    """The C call writes NumPy scalars of the parameter's type and Python numbers
    that fit as the checked road does; every other form raises as before, and a
    repeat after an error launches the last good arguments."""
    k = dev.program(SCALARS).kernel("scalars")
    o, f = dev.empty(6, np.int32), dev.empty(1, np.float32)
    cases = [
        ((-128, 255, -32768, 65535, -2**31, 2**32 - 1, 1.5),
         [-128, 255, -32768, 65535, -2**31, -1], 1.5),
        ((np.int8(127), np.uint8(0), np.int16(32767), np.uint16(1), np.int32(2**31 - 1),
          np.uint32(7), np.float32(-2.25)), [127, 0, 32767, 1, 2**31 - 1, 7], -2.25),
        ((0, 0, 0, 0, 0, 0, 3), [0] * 6, 3.0),  # an int for a float: the checked road
        ((0, 0, 0, 0, 0, 0, 1e300), [0] * 6, np.inf),  # as ctypes writes it: inf
    ]
    for args, ints, x in cases:
        for _ in range(2):  # written, then a repeat of the same objects
            k(1, 1, o, f, *args)
            np.testing.assert_array_equal(o.get(), ints)
            assert f.get()[0] == np.float32(x)
    bad = [((128, 0, 0, 0, 0, 0, 0.0), "does not fit"), ((0, -1, 0, 0, 0, 0, 0.0), "does not fit"),
           ((0, 0, 0, 0, 0, 2**32, 0.0), "does not fit"), ((True, 0, 0, 0, 0, 0, 0.0), "bool"),
           ((0, 0, 0, 0, np.int64(1), 0, 0.0), "int64"), ((0, 0, 0, 0, 0, 0, np.float64(1)),
                                                          "float64"),
           ((0, 0, 0, 0, 0, 0, "1"), "str"), ((0, 0, 0, 0, 0, 0, None), "NoneType")]
    for args, word in bad:
        with pytest.raises(anygpu.InvalidLaunchError, match=word):
            k(1, 1, o, f, *args)
    good = (np.int8(1), 2, 3, 4, 5, 6, 7.0)
    k(1, 1, o, f, *good)
    np.testing.assert_array_equal(o.get(), [1, 2, 3, 4, 5, 6])
    with pytest.raises(anygpu.InvalidLaunchError, match="does not fit"):
        k(1, 1, o, f, *good[:4], 2**40, *good[5:])
    k(1, 1, o, f, *good)  # the same objects again after the error
    np.testing.assert_array_equal(o.get(), [1, 2, 3, 4, 5, 6])
    assert f.get()[0] == 7.0


def test_buffers_and_geometry_from_c(dev, rng):
    """Buffers swapped between calls, every geometry form, a buffer of the wrong
    dtype or device, and queues: the C call and the checked road agree."""
    n = 256
    x = rng.random(n).astype(np.float32)
    bufs = [dev.to_device(x), dev.to_device(x), dev.to_device(x)]
    k = dev.program(VADD).kernel("vadd")
    nn = np.uint32(n)
    for i in range(4):  # ping-pong: new buffer objects in every slot each time
        a, b, c = bufs[i % 3], bufs[(i + 1) % 3], bufs[(i + 2) % 3]
        k(n, 64, a, a, c, nn)
        np.testing.assert_allclose(c.get(), 2 * a.get())
    bufs[0].set(x)
    for g, l in [(n, None), ((n,), (64,)), ([n], [64]), (np.int64(n), np.int32(64)),
                 ((n,), None), (n, 64)]:
        bufs[2].fill(0)
        k(g, l, bufs[0], bufs[0], bufs[2], nn)
        np.testing.assert_allclose(bufs[2].get(), 2 * x)
    with pytest.raises(anygpu.InvalidLaunchError, match="int32"):
        k(n, 64, bufs[0], dev.empty(n, np.int32), bufs[2], nn)
    with pytest.raises(anygpu.InvalidLaunchError, match="to_device"):
        k(n, 64, bufs[0], x, bufs[2], nn)
    with pytest.raises(anygpu.InvalidLaunchError, match="takes 4 arguments"):
        k(n, 64, bufs[0], bufs[0], bufs[2])
    with pytest.raises(anygpu.InvalidLaunchError, match="differ"):
        k((n, 1), (64,), bufs[0], bufs[0], bufs[2], nn)
    with pytest.raises(anygpu.InvalidLaunchError, match="1 to 3"):
        k((n, 1, 1, 1), None, bufs[0], bufs[0], bufs[2], nn)
    with pytest.raises(TypeError):
        k()
    with pytest.raises(anygpu.InvalidLaunchError, match="got 0"):
        k(n)
    with pytest.raises(anygpu.AnygpuError):
        k(n + 1, 64, bufs[0], bufs[0], bufs[2], nn)  # the library refuses the geometry
    fresh = dev.to_device(x)
    fresh.release()
    with pytest.raises(anygpu.InvalidHandleError, match="released"):
        k(n, 64, bufs[0], fresh, bufs[2], nn)  # a released buffer never seen before
    with dev.queue() as q:  # the fills are on the default queue: finished first
        bufs[2].fill(0)
        dev.finish()
        k(n, 64, bufs[0], bufs[0], bufs[2], nn, queue=q)
        q.finish()
        np.testing.assert_allclose(bufs[2].get(), 2 * x)
        bufs[2].fill(0)
        dev.finish()
        k(n, 64, c=bufs[2], b=bufs[0], a=bufs[0], n=nn, queue=q)
        q.finish()
        np.testing.assert_allclose(bufs[2].get(), 2 * x)
    with pytest.raises(AttributeError):
        k(n, 64, bufs[0], bufs[0], bufs[2], nn, queue=object())
    k(n, local_size=64, a=bufs[0], b=bufs[0], c=bufs[2], n=nn)
    dev.finish()


def test_release_lets_the_last_arguments_go(dev):
    """A kernel holds the arguments of its last launch until its release."""
    k = dev.program(VADD).kernel("vadd")
    b, c = dev.empty(64, np.float32), dev.empty(64, np.float32)
    k(64, 64, b, b, c, np.uint32(64))  # c through the C forms; b, dtype-checked, too
    k(64, 64, b, b, c, 64)
    dev.finish()
    refs = [weakref.ref(b), weakref.ref(c)]
    del b, c
    gc.collect()
    assert all(r() is not None for r in refs)
    k.release()
    gc.collect()
    assert all(r() is None for r in refs)
