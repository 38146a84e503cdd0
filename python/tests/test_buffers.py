# SPDX-License-Identifier: Apache-2.0
import numpy as np
import pytest

import anygpu

DTYPES = [np.float32, np.int32, np.uint8, np.int64, np.float64, np.uint16]


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_random(dev, rng, dtype):
    a = (rng.random((37, 29)) * 100).astype(dtype)
    with dev.to_device(a) as buf:
        assert buf.shape == a.shape and buf.dtype == a.dtype and buf.nbytes == a.nbytes
        np.testing.assert_array_equal(buf.get(), a)
        np.testing.assert_array_equal(np.asarray(buf), a)
    assert buf.released


def test_copy_fill_set(dev, rng):
    a = rng.random(1001).astype(np.float32)
    src, dst = dev.to_device(a), dev.empty(1001, np.float32)
    dst.fill(np.nan)
    assert np.isnan(dst.get()).all()
    src.copy_to(dst)
    np.testing.assert_array_equal(dst.get(), a)
    dst.set(a[::-1])
    out = np.empty_like(a)
    assert dst.get(out=out) is out
    np.testing.assert_array_equal(out, a[::-1])
    big = dev.zeros(2000, np.float32)
    src.copy_to(big)
    np.testing.assert_array_equal(big.get()[:1001], a)
    assert not big.get()[1001:].any()


def test_array_protocol(dev):
    buf = dev.to_device(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert np.asarray(buf, dtype=np.float64).dtype == np.float64
    assert (np.array(buf) + 1).sum() == 21
    with pytest.raises(ValueError):
        np.asarray(buf, copy=False) if np.lib.NumpyVersion(np.__version__) >= "2.0.0" \
            else buf.__array__(copy=False)


def test_empty_buffer(dev):
    buf = dev.empty(0, np.float32)
    assert buf.get().shape == (0,)


def test_released_buffer_raises(dev):
    buf = dev.empty(16)
    buf.release()
    for call in (buf.get, lambda: buf.set(np.zeros(16, np.float32)), buf.release,
                 lambda: buf.copy_to(dev.empty(16)), lambda: buf.fill(1)):
        with pytest.raises(anygpu.InvalidHandleError, match="already released"):
            call()


def test_wrong_dtype_and_shape_raise(dev):
    buf = dev.empty(16, np.float32)
    with pytest.raises(anygpu.InvalidArgumentError, match="float64"):
        buf.set(np.zeros(16))
    with pytest.raises(anygpu.OutOfRangeError):
        buf.set(np.zeros(17, np.float32))
    with pytest.raises(anygpu.OutOfRangeError):
        buf.copy_to(dev.empty(15, np.float32))
    with pytest.raises(anygpu.InvalidArgumentError):
        buf.copy_to(dev.empty(16, np.int32))
    with pytest.raises(anygpu.InvalidArgumentError):
        buf.copy_to(np.zeros(16, np.float32))
    with pytest.raises(anygpu.InvalidArgumentError):
        buf.get(out=np.empty(16, np.float64))
    with pytest.raises(anygpu.InvalidArgumentError):
        dev.empty((-1, 2))
    with pytest.raises(anygpu.InvalidArgumentError):
        dev.to_device(np.array([object()]))


def test_too_large_raises(dev):
    with pytest.raises((anygpu.OutOfDeviceMemoryError, anygpu.InvalidArgumentError,
                        anygpu.OutOfHostMemoryError)) as e:
        dev.empty(1 << 62, np.uint8)
    assert e.value.message


def test_closed_device_raises(rng):
    dev = anygpu.device("cpu:0")
    buf = dev.to_device(rng.random(8).astype(np.float32))
    dev.close()
    assert buf.released
    with pytest.raises(anygpu.InvalidHandleError, match="closed"):
        dev.empty(4)
    with pytest.raises(anygpu.InvalidHandleError):
        buf.get()
    dev.close()  # twice is fine
