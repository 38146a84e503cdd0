# SPDX-License-Identifier: Apache-2.0
"""Queues and events: ordering work, waiting for it and timing it on the device."""
import ctypes

from ._lib import lib
from ._resource import Resource
from .errors import check


class Queue(Resource):
    """An in-order queue. Pass it as queue= to transfers and launches;
    record() marks a point whose device time events measure."""
    _release_fn = lib.agpu_queue_release
    _kind = "queue"

    @classmethod
    def create(cls, device):
        handle = ctypes.c_void_p()
        check(lib.agpu_queue_create(device._h(), ctypes.byref(handle)))
        return cls(device, handle.value)

    @classmethod
    def default(cls, device):
        """The device's default queue (what queue=None means); releasing it is a no-op."""
        handle = ctypes.c_void_p()
        check(lib.agpu_device_default_queue(device._h(), ctypes.byref(handle)))
        return cls(device, handle.value)

    def finish(self):
        """Waits until all work submitted to the queue has completed."""
        check(lib.agpu_queue_finish(self._h()))

    def record(self):
        """An event at this point of the queue."""
        handle = ctypes.c_void_p()
        check(lib.agpu_event_record(self._h(), ctypes.byref(handle)))
        return Event(self.device, handle.value)


class Event(Resource):
    """A point recorded in a queue. `end.elapsed_ns(start)` (or `end - start`, in
    seconds) is the device time of the work between two events of one queue."""
    _release_fn = lib.agpu_event_release
    _kind = "event"

    def wait(self):
        check(lib.agpu_event_wait(self._h()))

    def elapsed_ns(self, start):
        ns = ctypes.c_uint64()
        check(lib.agpu_event_elapsed_ns(start._h(), self._h(), ctypes.byref(ns)))
        return ns.value

    def __sub__(self, start):
        return self.elapsed_ns(start) * 1e-9
