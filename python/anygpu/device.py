# SPDX-License-Identifier: Apache-2.0
"""Devices: listing (the fields of `anygpu list --json`), selection, and what a device makes."""
import ctypes

import numpy as np

from ._lib import DeviceInfo, MemoryInfo, lib, text
from ._resource import Children
from .errors import INVALID_ARGUMENT, INVALID_HANDLE, check, error

_FIELDS_AFTER_UUID = ("max_buffer_range_bytes", "buffers_by_address", "max_buffer_params",
                      "max_param_bytes")


def _info_dict(info):
    """One device as `anygpu list --json` writes it (tools/device_report.c)."""
    d = dict(backend=text(info.backend_name), index=info.index, selector=text(info.selector),
             name=text(info.name), vendor=text(info.vendor), vendor_id=info.vendor_id,
             device_id=info.device_id, type=_type_name(info.type),
             driver_version=text(info.driver_version), api_version=text(info.api_version),
             global_mem_bytes=info.global_mem_bytes, max_alloc_bytes=info.max_alloc_bytes,
             local_mem_bytes=info.local_mem_bytes, compute_units=info.compute_units,
             max_work_group_size=info.max_work_group_size,
             max_work_item_sizes=list(info.max_work_item_sizes),
             max_work_groups=list(info.max_work_groups),
             subgroup_sizes=[s for s in info.subgroup_sizes if s],
             max_clock_mhz=info.max_clock_mhz, fp64=info.fp64, fp16=info.fp16,
             int64=info.int64, unified_memory=info.unified_memory,
             pci=text(info.pci) if info.has_pci else None,
             uuid=bytes(info.uuid).hex() if info.has_uuid else None)
    for key in ("arch", "memory_clock_mhz", "memory_bus_width_bits", "last_level_cache_bytes",
                "peak_bandwidth_gb_s", "peak_fp32_gflop_s"):
        value = getattr(info, key)
        if value:
            d[key] = text(value) if isinstance(value, bytes) else value
    for key in _FIELDS_AFTER_UUID:
        d[key] = getattr(info, key)
    return d


def _type_name(t):
    return text(lib.agpu_device_type_name(t))


_INFO = {}  # native handle -> its info dict, read once


def _wrap(handle):
    """A new Device object (each has its own close()) for a native device."""
    if handle not in _INFO:
        info = DeviceInfo()
        check(lib.agpu_device_get_info(handle, ctypes.byref(info)))
        _INFO[handle] = _info_dict(info)
    return Device(handle, _INFO[handle])


def devices():
    """Every device of every available backend, as dicts with the fields of
    `anygpu list --json`."""
    count = ctypes.c_uint32()
    check(lib.agpu_device_count(ctypes.byref(count)))
    out = []
    for i in range(count.value):
        handle = ctypes.c_void_p()
        check(lib.agpu_device_get(i, ctypes.byref(handle)))
        out.append(dict(_wrap(handle.value).info))
    return out


def device(selector=None):
    """The best device the selector matches ("cuda:0;*:gpu;cpu:0"); None or "" means
    $ANYGPU_DEVICE, else the best device."""
    handle = ctypes.c_void_p()
    check(lib.agpu_device_select(selector.encode() if selector else None, ctypes.byref(handle)))
    return _wrap(handle.value)


def select_all(selector=None):
    """Every device the selector matches, best first (None or "": $ANYGPU_DEVICE,
    else every device)."""
    count = ctypes.c_uint32()
    sel = selector.encode() if selector else None
    check(lib.agpu_device_select_all(sel, None, 0, ctypes.byref(count)))
    handles = (ctypes.c_void_p * max(count.value, 1))()
    check(lib.agpu_device_select_all(sel, handles, count.value, ctypes.byref(count)))
    return [_wrap(h) for h in handles[:count.value]]


class Device:
    """A device. Devices belong to the library; close() (or the end of a with
    block) waits for its work and releases every buffer, program, kernel, queue
    and event made through this object, after which it refuses to make more."""

    def __init__(self, handle, info):
        self._handle = handle
        self.info = info
        self._children = Children()
        self._default_queue = None

    selector = property(lambda self: self.info["selector"])
    name = property(lambda self: self.info["name"])
    backend = property(lambda self: self.info["backend"])
    closed = property(lambda self: self._handle is None)

    def __repr__(self):
        state = " closed" if self.closed else ""
        return f"<anygpu.Device {self.selector} {self.name!r}{state}>"

    def _h(self):
        if self._handle is None:
            raise error(INVALID_HANDLE, f"device {self.selector} was closed")
        return self._handle

    def _adopt(self, obj):
        self._children.add(obj)

    def _disown(self, obj):
        self._children.discard(obj)

    def close(self):
        if self._handle is None:
            return
        try:
            self.finish()
        finally:
            self._children.release_all()
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def finish(self):
        """Waits for all work submitted to the device."""
        check(lib.agpu_device_finish(self._h()))

    def memory(self):
        m = MemoryInfo()
        check(lib.agpu_device_memory(self._h(), ctypes.byref(m)))
        return dict(total_bytes=m.total_bytes,
                    free_bytes=m.free_bytes if m.free_known else None,
                    allocated_bytes=m.allocated_bytes,
                    peak_allocated_bytes=m.peak_allocated_bytes)

    # What a device makes; the classes live in their own modules.
    def empty(self, shape, dtype=np.float32, flags=0):
        from .buffer import Buffer
        return Buffer.create(self, shape, dtype, flags)

    def zeros(self, shape, dtype=np.float32):
        buf = self.empty(shape, dtype)
        buf.fill(0)
        return buf

    def to_device(self, array, queue=None):
        """A new buffer holding a copy of `array` (any array-like)."""
        array = np.ascontiguousarray(array)
        if array.dtype.hasobject:
            raise error(INVALID_ARGUMENT, f"to_device: dtype {array.dtype} holds Python objects")
        buf = self.empty(array.shape, array.dtype)
        buf.set(array, queue=queue)
        return buf

    def program(self, source, options=None, includes=(), name=None):
        from .program import Program
        return Program.build(self, source, options, includes, name)

    def queue(self):
        """A new in-order queue on this device."""
        from .queue import Queue
        return Queue.create(self)

    @property
    def default_queue(self):
        from .queue import Queue
        if self._default_queue is None or self._default_queue.released:
            self._default_queue = Queue.default(self)
        return self._default_queue
