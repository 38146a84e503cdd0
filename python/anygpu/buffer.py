# SPDX-License-Identifier: Apache-2.0
"""Buffers: device memory seen as an array of a shape and dtype."""
import ctypes
import math
import mmap
import os
import sys
import threading

import numpy as np

from ._lib import lib
from ._resource import Resource
from .errors import INVALID_ARGUMENT, OUT_OF_RANGE, check, error


class _HostCache:
    """Host memory for get()'s new arrays, reused: a large ndarray that get()
    returned and that is gone returns its memory here, and the next get() of a
    size that fits reads into those pages, already mapped, instead of paying the
    page faults (and the kernel's zeroing) of fresh memory, which cost more than
    the read itself (docs/python.md, "Reads"). Only arrays of at least
    MIN_BYTES; at most max_bytes held ($ANYGPU_HOST_CACHE_BYTES, default 1 GiB;
    0 turns it off)."""
    MIN_BYTES = 4 << 20

    def __init__(self):
        self.max_bytes = int(os.environ.get("ANYGPU_HOST_CACHE_BYTES", 1 << 30))
        self.blocks = []  # free np.uint8 arrays
        self.held = 0
        self.lock = threading.RLock()  # a GC pass inside take() may give() back

    def take(self, nbytes):
        """A free block of nbytes to 2*nbytes, or None."""
        with self.lock:
            best = None
            for i, block in enumerate(self.blocks):
                if nbytes <= block.size <= 2 * nbytes and (best is None
                                                           or block.size < self.blocks[best].size):
                    best = i
            if best is None:
                return None
            block = self.blocks.pop(best)
            self.held -= block.size
            return block

    def give(self, block):
        with self.lock:
            if self.held + block.size <= self.max_bytes:
                self.blocks.append(block)
                self.held += block.size

    def clear(self):
        with self.lock:
            self.blocks, self.held = [], 0

    def empty(self, shape, dtype):
        """np.empty(shape, dtype), in reused memory where it is large enough,
        else in fresh memory made ready before the read (_fresh_block)."""
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes < self.MIN_BYTES or dtype.hasobject:
            return np.empty(shape, dtype)
        if self.max_bytes <= 0:
            return _fresh_block(nbytes).view(dtype).reshape(shape)
        block = self.take(nbytes)
        if block is None:
            block = _fresh_block(nbytes)
        owner = _Lease(self, block, nbytes)
        return np.asarray(owner).view(dtype).reshape(shape)


# madvise(2) advice: MADV_HUGEPAGE, and MADV_POPULATE_WRITE (Linux 5.14; Python's
# mmap module names it from 3.13 on only)
_MADVISE = ([getattr(mmap, "MADV_HUGEPAGE", 14), getattr(mmap, "MADV_POPULATE_WRITE", 23)]
            if sys.platform.startswith("linux") and hasattr(mmap.mmap, "madvise") else [])


def _fresh_block(nbytes):
    """nbytes of fresh host memory (np.uint8) for a read: an anonymous mapping
    with huge pages asked for (as np.empty does) and prefaulted at once
    (MADV_POPULATE_WRITE), which costs the kernel less than taking the same page
    faults one by one in the read's copy: a 256 MiB get() into it took 0.83-1.00x
    the time of one into np.empty's memory (python/bench/bench_get.py, docs/python.md).
    np.empty where that fails."""
    if not _MADVISE:
        return np.empty(nbytes, np.uint8)
    try:
        region = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except (OSError, ValueError):
        return np.empty(nbytes, np.uint8)
    for advice in _MADVISE:
        try:
            region.madvise(advice)
        except OSError:  # an older kernel: the read's copy faults the pages in
            pass
    return np.frombuffer(region, np.uint8)  # the array keeps the mapping alive


class _Lease:
    """The base of an array in cached memory: when the array (and every view of
    it) is gone, its block goes back to the cache."""
    __slots__ = ("cache", "block", "__array_interface__")

    def __init__(self, cache, block, nbytes):
        self.cache, self.block = cache, block
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "version": 3,
                                    "data": (block.ctypes.data, False)}

    def __del__(self):
        block, self.block = self.block, None
        if block is not None:
            try:
                self.cache.give(block)
            except Exception:  # interpreter shutdown
                pass


host_cache = _HostCache()

try:  # the DLPack capsule is made in C (src/_speedups.c)
    from . import _speedups
except ImportError:
    _speedups = None

# DLPack's DLDeviceType and DLDataTypeCode
_DL_DEVICE = {"cpu": 1, "cuda": 2, "opencl": 4, "vulkan": 7, "hip": 10}
_DL_EXT_DEV, _DL_CPU = 12, 1
_DL_CODE = {"i": 0, "u": 1, "f": 2, "b": 6}


class _Export:
    """The owner of a DLPack export: the buffer's memory mapped for the host
    (CPU backend), or its device address (CUDA, HIP; ptr None, nothing to
    unmap). When the last consumer lets go, the mapping goes, and the buffer
    is released if release() (or the device's close()) came in the meantime."""

    def __init__(self, buf, handle, ptr):
        self.buf, self.handle, self.ptr = buf, handle, ptr
        buf._exports += 1

    def __del__(self):
        buf = self.buf
        try:
            if self.ptr is not None:
                lib.agpu_buffer_unmap(None, self.handle, self.ptr)
            buf._exports -= 1
            if buf._exports == 0 and buf._release_deferred:
                buf._release_deferred = False
                lib.agpu_buffer_release(self.handle)
        except Exception:  # interpreter shutdown
            pass


def _device_address(handle):
    """The buffer's address in its device's address space (agpu_buffer_device_address):
    a CUdeviceptr on CUDA, a device pointer on HIP, the host pointer on the CPU
    backend. AttributeError where the library (an older one, through
    ANYGPU_LIBRARY) has no such call, so that hasattr(buf,
    "__cuda_array_interface__") is False and consumers copy; UnsupportedError
    on OpenCL and Vulkan."""
    fn = getattr(lib, "agpu_buffer_device_address", None)
    if fn is None:
        raise AttributeError("__cuda_array_interface__: this libanygpu gives no device address "
                             "of a buffer (agpu_buffer_device_address)")
    fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64)]
    address = ctypes.c_uint64()
    check(fn(handle, ctypes.byref(address)))
    return address.value


def _cuda_array_interface(shape, dtype, address):
    """The CUDA Array Interface, version 3, of C-contiguous memory at a device
    address: no stream (the producer's work on it is finished)."""
    return {"shape": tuple(shape), "typestr": np.dtype(dtype).str, "data": (address, False),
            "strides": None, "version": 3}


def _queue_handle(queue):
    return None if queue is None else queue._h()


class Buffer(Resource):
    """A device buffer with a NumPy shape and dtype. get() reads it into a new
    ndarray (so does np.asarray(buf)); set() writes one; copy_to() copies into
    another buffer on the device."""
    _release_fn = lib.agpu_buffer_release
    _kind = "buffer"
    _exports = 0  # live DLPack exports of its memory
    _release_deferred = False

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
            out = host_cache.empty(self.shape, self.dtype)
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

    def release(self):
        """Releases the native buffer now, or, while DLPack consumers still hold
        its memory, once the last of them lets go (the Buffer reads as released
        at once)."""
        if self._exports and self._handle is not None:
            self._handle = None
            self._device._disown(self)
            self._release_deferred = True
            return
        super().release()

    def __dlpack_device__(self):
        """(DLDeviceType, device index): kDLCPU for the CPU backend's buffers,
        which DLPack export hands out; kDLCUDA, kDLOpenCL, kDLVulkan, kDLROCM
        for the others."""
        info = self._device.info
        if info["backend"] == "cpu":
            return (_DL_CPU, 0)
        return (_DL_DEVICE.get(info["backend"], _DL_EXT_DEV), info["index"])

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule without a copy: on the CPU backend the buffer's own
        host memory (kDLCPU, np.from_dlpack(buf)); on CUDA and HIP its device
        memory (kDLCUDA, kDLROCM: torch.from_dlpack(buf), cupy.from_dlpack),
        after the device's work is finished (so any consumer stream may use
        it). On OpenCL and Vulkan only copy=True (a host copy, as get()) is
        possible; else BufferError. The memory stays valid while a consumer
        holds it, even across release(). On the CPU backend, finish kernels
        that write it before reading it."""
        handle = self._h()
        if copy:
            return self.get().__dlpack__()
        where = self.__dlpack_device__()
        backend = self._device.info["backend"]
        if backend not in ("cpu", "cuda", "hip"):
            raise BufferError(f"DLPack: a buffer on {self._device.selector} is not host memory "
                              "and has no device address (export with copy=True, or use get())")
        if dl_device is not None and tuple(dl_device) != where:
            raise BufferError(f"DLPack: the buffer is on {where}, not {tuple(dl_device)}")
        code = _DL_CODE.get(self.dtype.kind)
        if code is None or not self.dtype.isnative:
            raise BufferError(f"DLPack: no DLPack type for {self.dtype}")
        if _speedups is None:
            raise BufferError("DLPack: anygpu was installed without its C extension")
        if backend == "cpu":
            ptr = ctypes.c_void_p()
            check(lib.agpu_buffer_map(None, handle, 0, max(self.nbytes, 1), ctypes.byref(ptr)))
            address, owner = ptr.value, _Export(self, handle, ptr.value)
        else:
            try:
                address = _device_address(handle)
            except AttributeError as e:
                raise BufferError(f"DLPack: {e}") from None
            self._device.finish()  # the consumer's stream sees the work done
            owner = _Export(self, handle, None)
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        return _speedups.dlpack(address, self.shape, code, 8 * self.dtype.itemsize,
                                where[0], where[1], owner, versioned)

    @property
    def __cuda_array_interface__(self):
        """On CUDA devices, the CUDA Array Interface (version 3) for CuPy,
        PyTorch and Numba, after the device's work is finished; absent
        (AttributeError) elsewhere. The consumer's array does not keep the
        buffer alive: keep the Buffer while it is used."""
        if self._device.info["backend"] != "cuda":
            raise AttributeError(f"__cuda_array_interface__: {self._device.selector} is not a "
                                 "CUDA device")
        handle = self._h()
        address = _device_address(handle)
        self._device.finish()  # no stream in the interface: the work on it is done
        return _cuda_array_interface(self.shape, self.dtype, address)

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError("an anygpu.Buffer lives on the device: np.asarray copies it")
        array = self.get()
        return array if dtype is None else array.astype(dtype)
