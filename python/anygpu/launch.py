# SPDX-License-Identifier: Apache-2.0
"""Kernels and their launch: arguments checked against the kernel's signature, then
written into a preallocated agpu_arg array, so that a launch is one C call (the C
extension's KernelBase, src/_speedups.c) or, without the extension, one ctypes call."""
import ctypes
import operator
import os

import numpy as np

from ._lib import ARG_BUFFER, ARG_LOCAL, ARG_VALUE, Arg, lib
from ._resource import Resource
from .buffer import Buffer
from .errors import INVALID_LAUNCH, check, error
from .program import kernel_signature

try:  # the launch in C (src/_speedups.c); without it, all in Python and ctypes
    from . import _speedups
except ImportError:
    _speedups = None
if os.environ.get("ANYGPU_PYTHON_LAUNCH"):  # the pure-Python launch path, for comparison
    _speedups = None

_SCALARS = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
            "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
            "float": np.float32, "double": np.float64, "half": np.float16, "bool": np.bool_,
            "size_t": np.uint64}
_VALUE_OFFSET = Arg.value.offset
_UNSET = object()
_BUFFER_OFFSET = Arg.buffer.offset


class LocalMemory:
    """A __local argument: `nbytes` of work-group scratch, sized at launch."""

    def __init__(self, nbytes):
        self.nbytes = operator.index(nbytes)


def _base_dtype(type_name):
    """The NumPy dtype of a type name ("const float*" -> float32, "float4" -> float32),
    and its vector width; None for a type NumPy has no name for (a struct)."""
    base = type_name.replace("const ", "").rstrip("*").strip()
    stem = base.rstrip("0123456789")
    lanes = int(base[len(stem):]) if stem != base else 1
    dtype = _SCALARS.get(stem)
    return (np.dtype(dtype) if dtype else None), lanes


class _Slot:
    """One parameter and its agpu_arg: a checker that writes an argument into it."""

    def __init__(self, kernel, index, param, arg_address):
        self.kernel, self.param = kernel, param
        self.where = f"{kernel.name}: argument {index} ('{param['name']}', {param['type']})"
        self.dtype, lanes = _base_dtype(param["type"])
        self.arg = Arg.from_address(arg_address)  # a view into the kernel's array
        self.buffer = ctypes.c_void_p.from_address(arg_address + _BUFFER_OFFSET)
        self.last = _UNSET  # the argument the array holds now: the same one is not rewritten
        self.is_buffer = param["kind"] not in ("scalar", "local")
        self.scalar = None
        if self.dtype is not None and self.dtype.kind in "iu":
            self.int_range = (int(np.iinfo(self.dtype).min), int(np.iinfo(self.dtype).max))
        if (param["kind"] == "scalar" and lanes == 1 and self.dtype is not None
                and self.dtype.kind in "iuf" and self.dtype != np.float16
                and self.dtype.itemsize == param["size"]):  # written through a ctypes view
            ctype = np.ctypeslib.as_ctypes_type(self.dtype)
            self.scalar = ctype.from_address(arg_address + _VALUE_OFFSET)
        if param["kind"] == "scalar":
            size = param["size"] or (self.dtype.itemsize * lanes if self.dtype else 0)
            raw = (ctypes.c_uint8 * max(size, 1)).from_address(arg_address + _VALUE_OFFSET)
            self.value = np.frombuffer(raw, np.uint8)
            self.lanes = lanes
            self.put = self._put_value
            self.arg.kind = ARG_VALUE
        elif param["kind"] == "local":
            self.put = self._put_local
            self.arg.kind = ARG_LOCAL
        else:  # global, constant, unknown: a buffer
            self.put = self._put_buffer
            self.arg.kind = ARG_BUFFER

    def fail(self, what):
        return error(INVALID_LAUNCH, f"{self.where}: {what}")

    def _put_buffer(self, arg):
        if not isinstance(arg, Buffer):
            raise self.fail(f"expected an anygpu.Buffer, got {type(arg).__name__}"
                            + (" (copy it with dev.to_device first)"
                               if isinstance(arg, np.ndarray) else ""))
        handle = arg._h()
        if arg._device._handle != self.kernel.device._handle:
            raise self.fail(f"the buffer is on {arg.device.selector}, the kernel on "
                            f"{self.kernel.device.selector}")
        if self.dtype is not None and arg.dtype != self.dtype:
            raise self.fail(f"a buffer of {arg.dtype} where the kernel takes {self.dtype}")
        self.buffer.value = handle
        self.last = arg

    def _put_value(self, arg):
        if self.scalar is not None and self._put_scalar(arg):
            return
        value = self._as_value(arg)
        if value.nbytes > len(self.value):
            raise self.fail(f"{value.nbytes} bytes where the kernel takes {len(self.value)}")
        self.arg.size = value.nbytes
        self.value[:value.nbytes] = value.reshape(-1).view(np.uint8)
        self.last = arg if isinstance(arg, np.generic) else _UNSET

    def _put_scalar(self, arg):
        """The quick road for a NumPy scalar of the parameter's dtype or a Python
        number it holds exactly; False to take the checked one."""
        kind = self.dtype.kind
        if type(arg) is self.dtype.type or (type(arg) is int and kind in "iu"
                                              and self._int_fits(arg)) \
                or (type(arg) is float and kind == "f"):
            self.scalar.value = arg
            self.arg.size = self.dtype.itemsize
            self.last = arg
            return True
        return False

    def _int_fits(self, value):
        return self.int_range[0] <= value <= self.int_range[1]

    def _as_value(self, arg):
        """The argument as a NumPy value of the parameter's type, or an error."""
        dtype = self.dtype
        if isinstance(arg, (np.generic, np.ndarray)):
            if dtype is not None and arg.dtype != dtype:
                raise self.fail(f"a {arg.dtype} where the kernel takes {self.param['type']} "
                                f"(pass np.{dtype.name}(...))")
            if self.lanes > 1 and np.size(arg) != self.lanes:
                raise self.fail(f"{np.size(arg)} values where the kernel takes {self.lanes}")
            return np.ascontiguousarray(arg)
        if dtype is None or self.lanes > 1 or isinstance(arg, bool):
            raise self.fail(f"a Python {type(arg).__name__} where the kernel takes "
                            f"{self.param['type']} (pass a NumPy value)")
        if isinstance(arg, int) and dtype.kind in "iu":
            if not self._int_fits(arg):
                raise self.fail(f"{arg} does not fit {self.param['type']}")
        elif not (isinstance(arg, (int, float)) and dtype.kind == "f"):
            raise self.fail(f"a Python {type(arg).__name__} where the kernel takes "
                            f"{self.param['type']}")
        return np.array(arg, dtype)

    def _put_local(self, arg):
        if not isinstance(arg, LocalMemory):
            raise self.fail(f"expected anygpu.LocalMemory(nbytes), got {type(arg).__name__}")
        self.arg.size = min(arg.nbytes, 0xFFFFFFFF)
        self.arg.value.u64 = arg.nbytes
        self.last = _UNSET


def _sizes(what, sizes):
    sizes = (sizes,) if isinstance(sizes, (int, np.integer)) else tuple(sizes)
    if not 1 <= len(sizes) <= 3:
        raise error(INVALID_LAUNCH, f"{what} has {len(sizes)} dimensions; 1 to 3 are allowed")
    try:
        return tuple(operator.index(s) for s in sizes)
    except TypeError:
        raise error(INVALID_LAUNCH, f"{what} must be integers, not {sizes}") from None


if _speedups is not None:
    _speedups.configure(Buffer, check)
    _BASES = (_speedups.KernelBase, Resource)  # __call__ is the C base's (tp_call)
else:
    _BASES = (Resource,)


class Kernel(*_BASES):
    """A kernel. Call it to launch: k(global_size, local_size, *args, queue=None)
    or with the parameters by name, k(global_size, None, a=x, n=np.uint32(5));
    local_size None lets the library choose. An argument that is the same object
    as at the last launch is not converted again (a released buffer still raises).
    With the C extension the whole call is one C call (_speedups.KernelBase);
    the forms it does not take itself, and every error, go through the Python
    checks below."""
    _release_fn = lib.agpu_kernel_release
    _kind = "kernel"

    def __init__(self, program, handle):
        super().__init__(program.device, handle)
        self.program = program  # the program outlives its kernels
        self.name, self.params, self.required_work_group_size, self.max_work_group_size = \
            kernel_signature(handle)
        n = len(self.params)
        self._args = (Arg * max(n, 1))()
        base = ctypes.addressof(self._args)
        self._slots = [_Slot(self, i, p, base + i * ctypes.sizeof(Arg))
                       for i, p in enumerate(self.params)]
        self._names = {p["name"]: i for i, p in enumerate(self.params)}
        self._global = (ctypes.c_size_t * 3)()
        self._local = (ctypes.c_size_t * 3)()
        self._geometry = None  # (global_size, local_size) as last given
        self._dims, self._local_ptr = 0, None
        self._kernel_ptr = ctypes.c_void_p(handle)
        if _speedups is not None:
            self._setup(_LAUNCH_ADDRESS, base, ctypes.addressof(self._global),
                        ctypes.addressof(self._local), self._slots,
                        tuple(_c_spec(s, base + i * ctypes.sizeof(Arg))
                              for i, s in enumerate(self._slots)),
                        self.device, (self._args, self._global, self._local),
                        (_BUFFER_OFFSET, Arg.size.offset, _VALUE_OFFSET))

    def __repr__(self):
        sig = ", ".join(f"{p['type']} {p['name']}" for p in self.params)
        return f"<anygpu.Kernel {self.name}({sig}) on {self.device.selector}>"

    def release(self):
        """Releases the kernel now, and the arguments of its last launch with it."""
        super().release()
        for slot in self._slots:
            slot.last = _UNSET

    def _by_name(self, args, kwargs):
        args = list(args) + [_UNSET] * (len(self.params) - len(args))
        for key, value in kwargs.items():
            if key not in self._names:
                raise error(INVALID_LAUNCH, f"{self.name}: no parameter '{key}'")
            if args[self._names[key]] is not _UNSET:
                raise error(INVALID_LAUNCH, f"{self.name}: '{key}' given twice")
            args[self._names[key]] = value
        missing = [p["name"] for p, a in zip(self.params, args) if a is _UNSET]
        if missing:
            raise error(INVALID_LAUNCH, f"{self.name}: missing {', '.join(missing)}")
        return args

    def _bad_count(self, args):
        """Raises the wrong-count error; args holds the geometry first (the C call's)."""
        raise error(INVALID_LAUNCH, f"{self.name} takes {len(self._slots)} arguments "
                                    f"({', '.join(self._names)}), got {len(args) - 2}")

    def _set_geometry(self, global_size, local_size):
        """Checks and writes the geometry; (dimensions, whether local_size is None)."""
        g = _sizes("global_size", global_size)
        self._global[:len(g)] = g
        self._local_ptr = None
        if local_size is not None:
            loc = _sizes("local_size", local_size)
            if len(loc) != len(g):
                raise error(INVALID_LAUNCH, f"local_size {loc} and global_size {g} differ "
                                            "in dimensions")
            self._local[:len(loc)] = loc
            self._local_ptr = self._local
        self._dims = len(g)
        self._geometry = (global_size, local_size)
        return self._dims, self._local_ptr is None

    def _call_by_name(self, global_size, local_size=None, *args, queue=None, **kwargs):
        """The C call's road for parameters given by name (and for a call without
        local_size): the arguments in order, then the C call again."""
        self._h()
        if kwargs:
            args = self._by_name(args, kwargs)
        return self(global_size, local_size, *args, queue=queue)

    def _python_call(self, global_size, local_size=None, *args, queue=None, **kwargs):
        """The launch without the C extension (ctypes only)."""
        if self._handle is None:
            self._h()
        if kwargs:
            args = self._by_name(args, kwargs)
        slots = self._slots
        if len(args) != len(slots):
            self._bad_count((global_size, local_size) + tuple(args))
        for slot, arg in zip(slots, args):
            if arg is not slot.last:
                slot.put(arg)
            elif slot.is_buffer and arg._handle is None:
                arg._h()  # released since the last launch: raises
        if self._geometry is None or (global_size, local_size) != self._geometry:
            self._set_geometry(global_size, local_size)
        status = _launch(None if queue is None else ctypes.c_void_p(queue._h()),
                         self._kernel_ptr, self._dims,
                         self._global, self._local_ptr, len(slots), self._args)
        if status:
            check(status)

    if _speedups is None:
        __call__ = _python_call


def _c_spec(slot, address):
    """What the C call needs of a parameter (_speedups.c, kb_setup): buffers and
    the scalars that _Slot._put_scalar takes are checked and written in C; every
    other form goes to slot.put."""
    if slot.is_buffer:
        return (1, "x", 0, 0, 0, None, slot.dtype, address)
    if slot.scalar is not None:
        dtype = slot.dtype
        lo, hi = slot.int_range if dtype.kind in "iu" else (0, 0)
        return (2, dtype.kind, dtype.itemsize, lo, hi, dtype.type, None, address)
    return (0, "x", 0, 0, 0, None, None, address)


# agpu_launch without ctypes' per-call argument conversion: Kernel passes ctypes objects.
_launch = ctypes.CFUNCTYPE(ctypes.c_int)(("agpu_launch", lib))
_LAUNCH_ADDRESS = ctypes.cast(lib.agpu_launch, ctypes.c_void_p).value
