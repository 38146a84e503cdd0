# SPDX-License-Identifier: Apache-2.0
"""What buffers, programs, kernels, queues and events share: a handle released once,
by release(), by the end of a with block, by the device's close(), or by the GC."""
import weakref

from .errors import INVALID_HANDLE, check, error


class Resource:
    _release_fn = None  # the C function that releases this kind of handle
    _kind = "object"

    def __init__(self, device, handle):
        self._device = device
        self._handle = handle
        device._adopt(self)

    @property
    def device(self):
        return self._device

    @property
    def released(self):
        return self._handle is None

    def _h(self):
        """The live handle, or InvalidHandleError for a released object."""
        if self._handle is None:
            raise error(INVALID_HANDLE, f"this {self._kind} on {self._device.selector} "
                                        "was already released")
        return self._handle

    def release(self):
        """Releases the native object now; a second release raises InvalidHandleError."""
        handle = self._h()
        self._handle = None
        self._device._disown(self)
        check(type(self)._release_fn(handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._handle is not None:
            self.release()

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None:
            try:
                type(self)._release_fn(handle)
            except Exception:  # interpreter shutdown: the library may be gone
                pass


class Children:
    """The live resources of a device, oldest first, held weakly."""

    def __init__(self):
        self._refs = {}

    def add(self, obj):
        key = id(obj)

        def gone(ref, refs=self._refs):
            if refs.get(key) is ref:
                del refs[key]
        self._refs[key] = weakref.ref(obj, gone)

    def discard(self, obj):
        self._refs.pop(id(obj), None)

    def release_all(self):
        for ref in reversed(list(self._refs.values())):
            obj = ref()
            if obj is not None and obj._handle is not None:
                obj.release()
        self._refs.clear()
