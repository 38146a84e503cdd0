# SPDX-License-Identifier: Apache-2.0
"""Exceptions: one class per agpu_status, carrying the status and agpu_last_error()."""
import re

from ._lib import lib, text

STATUS_NAMES = [
    "AGPU_SUCCESS", "AGPU_ERROR_INVALID_ARGUMENT", "AGPU_ERROR_INVALID_HANDLE",
    "AGPU_ERROR_NOT_FOUND", "AGPU_ERROR_BACKEND_UNAVAILABLE", "AGPU_ERROR_UNSUPPORTED",
    "AGPU_ERROR_OUT_OF_DEVICE_MEMORY", "AGPU_ERROR_OUT_OF_HOST_MEMORY",
    "AGPU_ERROR_OUT_OF_RANGE", "AGPU_ERROR_BUILD_FAILED", "AGPU_ERROR_INVALID_LAUNCH",
    "AGPU_ERROR_DEVICE_LOST", "AGPU_ERROR_BACKEND", "AGPU_ERROR_INTERNAL",
    "AGPU_ERROR_KERNEL_FAULT",
]
(SUCCESS, INVALID_ARGUMENT, INVALID_HANDLE, NOT_FOUND, BACKEND_UNAVAILABLE, UNSUPPORTED,
 OUT_OF_DEVICE_MEMORY, OUT_OF_HOST_MEMORY, OUT_OF_RANGE, BUILD_FAILED, INVALID_LAUNCH,
 DEVICE_LOST, BACKEND, INTERNAL, KERNEL_FAULT) = range(len(STATUS_NAMES))


class AnygpuError(Exception):
    """A failed anygpu call: `status` (int), `status_name` and `message` (the library's
    agpu_last_error() text, or the Python layer's own words for a check it made)."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = (STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES)
                            else f"status {status}")
        self.message = message
        super().__init__(f"{self.status_name}: {message}")


class InvalidArgumentError(AnygpuError, ValueError): pass
class InvalidHandleError(AnygpuError, ValueError): pass
class NotFoundError(AnygpuError, LookupError): pass
class BackendUnavailableError(AnygpuError): pass
class UnsupportedError(AnygpuError): pass
class OutOfDeviceMemoryError(AnygpuError, MemoryError): pass
class OutOfHostMemoryError(AnygpuError, MemoryError): pass
class OutOfRangeError(AnygpuError, IndexError): pass
class InvalidLaunchError(AnygpuError, TypeError): pass
class DeviceLostError(AnygpuError): pass
class KernelFaultError(AnygpuError): pass
class BackendError(AnygpuError): pass
class InternalError(AnygpuError): pass


_DIAGNOSTIC = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): "
                         r"(?P<severity>error|warning|note): (?P<text>.*)$", re.M)


class BuildError(AnygpuError):
    """The kernel source did not compile. `diagnostics` lists every
    file:line:col message as dicts (file, line, col, severity, text); `log` is
    the whole compiler log."""

    def __init__(self, status, message):
        super().__init__(status, message)
        self.log = message
        self.diagnostics = [
            dict(file=m["file"], line=int(m["line"]), col=int(m["col"]),
                 severity=m["severity"], text=m["text"]) for m in _DIAGNOSTIC.finditer(message)]


_CLASSES = {
    INVALID_ARGUMENT: InvalidArgumentError, INVALID_HANDLE: InvalidHandleError,
    NOT_FOUND: NotFoundError, BACKEND_UNAVAILABLE: BackendUnavailableError,
    UNSUPPORTED: UnsupportedError, OUT_OF_DEVICE_MEMORY: OutOfDeviceMemoryError,
    OUT_OF_HOST_MEMORY: OutOfHostMemoryError, OUT_OF_RANGE: OutOfRangeError,
    BUILD_FAILED: BuildError, INVALID_LAUNCH: InvalidLaunchError, DEVICE_LOST: DeviceLostError,
    BACKEND: BackendError, INTERNAL: InternalError, KERNEL_FAULT: KernelFaultError,
}


def error(status, message):
    """The exception for `status`, worded with `message`."""
    return _CLASSES.get(status, AnygpuError)(status, message)


def check(status):
    """Raises the exception for a failed call, with agpu_last_error()'s text."""
    if status != SUCCESS:
        raise error(status, text(lib.agpu_last_error()))
