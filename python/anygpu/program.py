# SPDX-License-Identifier: Apache-2.0
"""Programs (built kernel source) and kernels (their entry points, with signatures)."""
import ctypes
import os

from ._lib import (PARAM_CONSTANT, PARAM_GLOBAL, PARAM_LOCAL, PARAM_SCALAR, KernelInfo,
                   ProgramDesc, lib, text)
from ._resource import Resource
from .errors import check


class Program(Resource):
    """Portable kernel source built for one device. `build_log` holds the
    compiler's warnings; a failed build raises BuildError with the diagnostics."""
    _release_fn = lib.agpu_program_release
    _kind = "program"

    @classmethod
    def build(cls, device, source, options=None, includes=(), name=None):
        """`source`: the kernel text, or a path to a .cl file; `options`: a string
        ("-DN=4") or a list of them; `includes`: folders searched by #include."""
        if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source
                                               and source.endswith(".cl")
                                               and os.path.isfile(source)):
            name = name or os.fspath(source)
            with open(source, "rb") as f:
                source = f.read()
        data = source.encode() if isinstance(source, str) else bytes(source)
        if options is not None and not isinstance(options, str):
            options = " ".join(options)
        includes = [os.fspath(d).encode() for d in includes]
        desc = ProgramDesc(source=data, source_size=len(data),
                           source_name=name.encode() if name else None,
                           options=options.encode() if options else None,
                           include_dirs=(ctypes.c_char_p * len(includes))(*includes)
                           if includes else None,
                           include_dir_count=len(includes))
        handle = ctypes.c_void_p()
        check(lib.agpu_program_build(device._h(), ctypes.byref(desc), ctypes.byref(handle)))
        return cls(device, handle.value)

    @property
    def build_log(self):
        return text(lib.agpu_program_build_log(self._h()))

    def kernel(self, name):
        """The kernel called `name`; NotFoundError lists those the program has."""
        from .launch import Kernel
        handle = ctypes.c_void_p()
        check(lib.agpu_kernel_create(self._h(), name.encode(), ctypes.byref(handle)))
        return Kernel(self, handle.value)


_KIND_NAMES = {PARAM_GLOBAL: "global", PARAM_CONSTANT: "constant", PARAM_SCALAR: "scalar",
               PARAM_LOCAL: "local"}


def kernel_signature(handle):
    """The kernel's name, parameters (dicts) and required work-group size."""
    info = KernelInfo()
    check(lib.agpu_kernel_get_info(handle, ctypes.byref(info)))
    params = [dict(name=text(p.name), type=text(p.type_name),
                   kind=_KIND_NAMES.get(p.kind, "unknown"), size=p.size, is_const=p.is_const)
              for p in info.params[:info.param_count]]
    required = (tuple(info.required_work_group_size) if info.has_required_work_group_size
                else None)
    return text(info.name), params, required, info.max_work_group_size
