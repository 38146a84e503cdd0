# SPDX-License-Identifier: Apache-2.0
"""Buffers: device memory seen as an array of a shape and dtype."""
import ctypes
import math

import numpy as np

from ._lib import lib
from ._resource import Resource
from .errors import INVALID_ARGUMENT, OUT_OF_RANGE, check, error


def _queue_handle(queue):
    return None if queue is None else queue._h()


class Buffer(Resource):
    """A device buffer with a NumPy shape and dtype. get() reads it into a new
    ndarray (so does np.asarray(buf)); set() writes one; copy_to() copies into
    another buffer on the device."""
    _release_fn = lib.agpu_buffer_release
    _kind = "buffer"

    @classmethod
    def create(cls, device, shape, dtype, flags=0):
        shape = (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)
        dtype = np.dtype(dtype)
        if any(s < 0 for s in shape) or dtype.hasobject or dtype.itemsize == 0:
            raise error(INVALID_ARGUMENT, f"empty: no buffer of shape {shape} and dtype {dtype}")
        nbytes = math.prod(shape) * dtype.itemsize
        handle = ctypes.c_void_p()
        check(lib.agpu_buffer_create(device._h(), max(nbytes, 1), flags, ctypes.byref(handle)))
        buf = cls(device, handle.value)
        buf.shape, buf.dtype, buf.nbytes = shape, dtype, nbytes
        return buf

    size = property(lambda self: math.prod(self.shape))
    ndim = property(lambda self: len(self.shape))

    def __repr__(self):
        state = ", released" if self.released else ""
        return (f"<anygpu.Buffer {self.shape} {self.dtype} on {self.device.selector}{state}>")

    def __len__(self):
        return self.shape[0]

    def get(self, out=None, queue=None):
        """The buffer's contents as a new ndarray (or into `out`, a C-contiguous
        ndarray of the same shape and dtype)."""
        handle = self._h()
        if out is None:
            out = np.empty(self.shape, self.dtype)
        elif (out.dtype != self.dtype or out.shape != self.shape
              or not out.flags.c_contiguous or not out.flags.writeable):
            raise error(INVALID_ARGUMENT,
                        f"get: out must be a writeable C-contiguous {self.shape} {self.dtype} "
                        f"array, not {out.shape} {out.dtype}")
        if self.nbytes:
            check(lib.agpu_buffer_read(_queue_handle(queue), handle, 0, self.nbytes,
                                       out.ctypes.data))
        return out

    def set(self, array, queue=None):
        """Writes `array` (same dtype; its size must fit the buffer's) into the buffer."""
        handle = self._h()
        array = np.asarray(array)
        if array.dtype != self.dtype:
            raise error(INVALID_ARGUMENT, f"set: an array of dtype {array.dtype} into a buffer "
                                          f"of {self.dtype} (convert it with astype first)")
        if array.size != self.size:
            raise error(OUT_OF_RANGE, f"set: an array of shape {array.shape} does not fit a "
                                      f"buffer of shape {self.shape}")
        array = np.ascontiguousarray(array)
        if self.nbytes:
            check(lib.agpu_buffer_write(_queue_handle(queue), handle, 0, self.nbytes,
                                        array.ctypes.data))

    def copy_to(self, other, queue=None):
        """Copies this buffer into `other` (same dtype, at least as many elements)."""
        if not isinstance(other, Buffer):
            raise error(INVALID_ARGUMENT, f"copy_to: expected an anygpu.Buffer, got "
                                          f"{type(other).__name__}")
        src, dst = self._h(), other._h()
        if other.dtype != self.dtype:
            raise error(INVALID_ARGUMENT, f"copy_to: from {self.dtype} into {other.dtype}")
        if other.nbytes < self.nbytes:
            raise error(OUT_OF_RANGE, f"copy_to: {self.shape} does not fit into {other.shape}")
        if self.nbytes:
            check(lib.agpu_buffer_copy(_queue_handle(queue), src, 0, dst, 0, self.nbytes))

    def fill(self, value, queue=None):
        """Sets every element to `value` (converted to the buffer's dtype)."""
        handle = self._h()
        pattern = np.array(value, dtype=self.dtype)
        if pattern.ndim or self.dtype.itemsize not in (1, 2, 4, 8, 16):
            raise error(INVALID_ARGUMENT, f"fill: one scalar value for a {self.dtype} buffer")
        if self.nbytes:
            check(lib.agpu_buffer_fill(_queue_handle(queue), handle, 0, self.nbytes,
                                       pattern.ctypes.data, self.dtype.itemsize))

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError("an anygpu.Buffer lives on the device: np.asarray copies it")
        array = self.get()
        return array if dtype is None else array.astype(dtype)
