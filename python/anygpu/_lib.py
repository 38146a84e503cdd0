# SPDX-License-Identifier: Apache-2.0
"""The C library through ctypes: where it is, its structs and its prototypes.

ctypes was chosen over cffi for everything but the launch and the
DLPack capsule, which a small C extension (src/_speedups.c, optional) does,
by measuring launch overhead (docs/python.md).
"""
import ctypes
import os
from ctypes import (POINTER, Structure, Union, c_bool, c_char, c_char_p, c_double,
                    c_int, c_size_t, c_uint8, c_uint32, c_uint64, c_void_p)

NATIVE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_native")


def library_path():
    """$ANYGPU_LIBRARY, else the libanygpu.so.0 shipped in the package."""
    return os.environ.get("ANYGPU_LIBRARY") or os.path.join(NATIVE_DIR, "lib", "libanygpu.so.0")


def cli_path():
    """$ANYGPU_CLI, else the anygpu command shipped in the package."""
    return os.environ.get("ANYGPU_CLI") or os.path.join(NATIVE_DIR, "bin", "anygpu")


MAX_VALUE_SIZE = 128
ARG_BUFFER, ARG_VALUE, ARG_LOCAL = 0, 1, 2
PARAM_GLOBAL, PARAM_CONSTANT, PARAM_SCALAR, PARAM_LOCAL, PARAM_UNKNOWN = range(5)


class BackendInfo(Structure):
    # agpu_backend_info in api/anygpu.h, field for field (the descriptor's
    # fields from target on): a struct shorter than the C one would be
    # overwritten past its end
    _fields_ = [("kind", c_int), ("name", c_char_p), ("available", c_bool),
                ("device_count", c_uint32), ("library", c_char_p), ("reason", c_char_p),
                ("target", c_uint32), ("gpu_rank", c_uint32), ("cpu_rank", c_uint32),
                ("colour", c_char_p), ("native_formats", c_uint32), ("environment", c_char_p),
                ("survives_fork", c_bool), ("testing", c_bool)]


class DeviceInfo(Structure):
    _fields_ = [
        ("backend", c_int), ("backend_name", c_char_p), ("index", c_uint32),
        ("selector", c_char * 32), ("name", c_char * 256), ("vendor", c_char * 128),
        ("vendor_id", c_uint32), ("device_id", c_uint32), ("type", c_int),
        ("driver_version", c_char * 128), ("api_version", c_char * 128),
        ("global_mem_bytes", c_uint64), ("max_alloc_bytes", c_uint64),
        ("local_mem_bytes", c_uint64), ("compute_units", c_uint32),
        ("max_work_group_size", c_uint32), ("max_work_item_sizes", c_uint32 * 3),
        ("max_work_groups", c_uint64 * 3), ("subgroup_sizes", c_uint32 * 4),
        ("max_clock_mhz", c_uint32), ("fp64", c_bool), ("fp16", c_bool), ("int64", c_bool),
        ("unified_memory", c_bool), ("has_pci", c_bool), ("pci", c_char * 16),
        ("has_uuid", c_bool), ("uuid", c_uint8 * 16), ("arch", c_char * 32),
        ("memory_clock_mhz", c_uint32), ("memory_bus_width_bits", c_uint32),
        ("last_level_cache_bytes", c_uint64), ("peak_bandwidth_gb_s", c_double),
        ("peak_fp32_gflop_s", c_double), ("max_buffer_range_bytes", c_uint64),
        ("buffers_by_address", c_bool), ("max_buffer_params", c_uint32),
        ("max_param_bytes", c_uint32)]


class MemoryInfo(Structure):
    _fields_ = [("total_bytes", c_uint64), ("free_bytes", c_uint64), ("free_known", c_bool),
                ("allocated_bytes", c_uint64), ("peak_allocated_bytes", c_uint64)]


class ProgramDesc(Structure):
    _fields_ = [("source", c_char_p), ("source_size", c_size_t), ("source_name", c_char_p),
                ("options", c_char_p), ("include_dirs", POINTER(c_char_p)),
                ("include_dir_count", c_uint32)]


class KernelParam(Structure):
    _fields_ = [("name", c_char * 64), ("type_name", c_char * 64), ("kind", c_int),
                ("size", c_uint32), ("is_const", c_bool)]


class KernelInfo(Structure):
    _fields_ = [("name", c_char * 128), ("param_count", c_uint32),
                ("params", POINTER(KernelParam)), ("has_required_work_group_size", c_bool),
                ("required_work_group_size", c_uint32 * 3), ("max_work_group_size", c_uint32)]


class _ArgValue(Union):
    _fields_ = [("bytes", c_uint8 * MAX_VALUE_SIZE), ("u64", c_uint64)]


class Arg(Structure):
    _fields_ = [("kind", c_int), ("size", c_uint32), ("buffer", c_void_p), ("value", _ArgValue)]


_H = c_void_p  # every handle
_PH = POINTER(c_void_p)
_PROTOTYPES = {
    "agpu_status_name": (c_char_p, [c_int]),
    "agpu_last_error": (c_char_p, []),
    "agpu_version": (c_char_p, []),
    "agpu_backend_count": (c_uint32, []),
    "agpu_backend_get_info": (c_int, [c_uint32, POINTER(BackendInfo)]),
    "agpu_device_count": (c_int, [POINTER(c_uint32)]),
    "agpu_device_get": (c_int, [c_uint32, _PH]),
    "agpu_device_get_info": (c_int, [_H, POINTER(DeviceInfo)]),
    "agpu_device_select": (c_int, [c_char_p, _PH]),
    "agpu_device_type_name": (c_char_p, [c_int]),
    "agpu_device_select_all": (c_int, [c_char_p, _PH, c_uint32, POINTER(c_uint32)]),
    "agpu_device_memory": (c_int, [_H, POINTER(MemoryInfo)]),
    "agpu_device_finish": (c_int, [_H]),
    "agpu_device_default_queue": (c_int, [_H, _PH]),
    "agpu_queue_create": (c_int, [_H, _PH]),
    "agpu_queue_release": (c_int, [_H]),
    "agpu_queue_finish": (c_int, [_H]),
    "agpu_event_record": (c_int, [_H, _PH]),
    "agpu_event_wait": (c_int, [_H]),
    "agpu_event_elapsed_ns": (c_int, [_H, _H, POINTER(c_uint64)]),
    "agpu_event_release": (c_int, [_H]),
    "agpu_buffer_create": (c_int, [_H, c_size_t, c_uint32, _PH]),
    "agpu_buffer_release": (c_int, [_H]),
    "agpu_buffer_write": (c_int, [_H, _H, c_size_t, c_size_t, c_void_p]),
    "agpu_buffer_read": (c_int, [_H, _H, c_size_t, c_size_t, c_void_p]),
    "agpu_buffer_map": (c_int, [_H, _H, c_size_t, c_size_t, _PH]),
    "agpu_buffer_unmap": (c_int, [_H, _H, c_void_p]),
    "agpu_buffer_copy": (c_int, [_H, _H, c_size_t, _H, c_size_t, c_size_t]),
    "agpu_buffer_fill": (c_int, [_H, _H, c_size_t, c_size_t, c_void_p, c_size_t]),
    "agpu_program_build": (c_int, [_H, POINTER(ProgramDesc), _PH]),
    "agpu_program_release": (c_int, [_H]),
    "agpu_program_build_log": (c_char_p, [_H]),
    "agpu_kernel_create": (c_int, [_H, c_char_p, _PH]),
    "agpu_kernel_release": (c_int, [_H]),
    "agpu_kernel_get_info": (c_int, [_H, POINTER(KernelInfo)]),
    "agpu_launch": (c_int, [_H, _H, c_uint32, POINTER(c_size_t), POINTER(c_size_t), c_uint32,
                            POINTER(Arg)]),
}


def _load():
    path = library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"anygpu: cannot load the C library {path}: {e} "
                          "(reinstall with pip install ./python, or set ANYGPU_LIBRARY)") from e
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


lib = _load()


def text(raw):
    """A C string (bytes or a char array) as str."""
    return raw.decode("utf-8", "replace") if raw else ""
