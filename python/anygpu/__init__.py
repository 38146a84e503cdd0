# SPDX-License-Identifier: Apache-2.0
"""anygpu from Python: every anygpu device (CUDA, HIP, OpenCL, Vulkan, CPU) through one
API in NumPy's terms. See docs/python.md."""
from ._lib import lib as _clib, text as _text
from .buffer import Buffer
from .compare import Comparison, compare_arrays, run_everywhere
from .device import Device, device, devices, select_all
from .errors import (AnygpuError, BackendError, BackendUnavailableError, BuildError,
                     DeviceLostError, InternalError, InvalidArgumentError, InvalidHandleError,
                     InvalidLaunchError, KernelFaultError, NotFoundError, OutOfDeviceMemoryError,
                     OutOfHostMemoryError, OutOfRangeError, UnsupportedError)
from .launch import Kernel, LocalMemory
from .program import Program
from .queue import Event, Queue

__version__ = _text(_clib.agpu_version())
__all__ = [name for name in dir() if not name.startswith("_")]
