# SPDX-License-Identifier: Apache-2.0
"""run_everywhere: one kernel on every device, outputs compared with `anygpu run
--compare`'s rule (tools/run_compare.h): numpy.allclose's |a - b| <= atol + rtol*|b|
against the reference device (the first, OpenCL's where there is one), rtol 1e-4
for float and 1e-10 for double, atol rtol times the reference's largest magnitude;
integers must be equal."""
import numpy as np

from .device import select_all
from .errors import AnygpuError

DEFAULT_RTOL = {2: 1e-2, 4: 1e-4, 8: 1e-10}


def _rule(reference, rtol, atol):
    """The (rtol, atol) for one output buffer; None for exact equality."""
    if reference.dtype.kind != "f":
        return None
    rtol = DEFAULT_RTOL[reference.dtype.itemsize] if rtol is None else rtol
    if atol is None:
        finite = np.abs(reference[np.isfinite(reference)])
        atol = rtol * float(finite.max()) if finite.size else 0.0
    return rtol, atol


def compare_arrays(got, reference, rtol=None, atol=None):
    """How `got` agrees with `reference`: dict(ok, differ, max_abs, rtol, atol)."""
    rule = _rule(reference, rtol, atol)
    if rule is None:
        bad = got != reference
        max_abs = float(np.max(np.abs(got.astype(np.float64) - reference))) if bad.any() else 0.0
        return dict(ok=not bad.any(), differ=int(bad.sum()), max_abs=max_abs, rtol=0, atol=0)
    close = np.isclose(got, reference, rtol=rule[0], atol=rule[1], equal_nan=True)
    diff = np.abs(got.astype(np.float64) - reference)
    max_abs = float(np.nanmax(diff)) if diff.size and not np.isnan(diff).all() else 0.0
    return dict(ok=bool(close.all()), differ=int((~close).sum()), max_abs=max_abs,
                rtol=rule[0], atol=rule[1])


class Comparison:
    """What run_everywhere found: `reference` (a selector), `outputs`
    {selector: {param: ndarray}}, `verdicts` {selector: {param: dict}} for the
    other devices, `errors` {selector: exception} for devices that could not run
    it. True when every device that ran it agrees with the reference."""

    def __init__(self):
        self.reference, self.outputs, self.verdicts, self.errors = None, {}, {}, {}

    @property
    def ok(self):
        return bool(self.outputs) and all(v["ok"] for d in self.verdicts.values()
                                          for v in d.values())

    __bool__ = lambda self: self.ok

    def __str__(self):
        lines = [f"reference {self.reference}"]
        for sel, verdicts in self.verdicts.items():
            for name, v in verdicts.items():
                word = "agrees" if v["ok"] else f"DIFFERS in {v['differ']} elements"
                lines.append(f"{sel:12} {name}: {word} (max |diff| {v['max_abs']:.3g})")
        lines += [f"{sel:12} error: {e}" for sel, e in self.errors.items()]
        return "\n".join(lines)


def _run_on(dev, source, kernel, args, global_size, local_size, options):
    """The kernel's non-const array outputs after one run on `dev`."""
    with dev:
        k = dev.program(source, options=options).kernel(kernel)
        bound = [dev.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        k(global_size, local_size, *bound)
        return {p["name"]: b.get() for p, a, b in zip(k.params, args, bound)
                if isinstance(a, np.ndarray) and p["kind"] == "global" and not p["is_const"]}


def run_everywhere(source, kernel, args, global_size=None, local_size=None, devices="*:*",
                   options=None, rtol=None, atol=None):
    """Runs `kernel` of `source` on every device `devices` selects (a selector or a
    list of Device objects) with `args` (ndarrays are copied to each device;
    scalars pass as they are) and compares every output array."""
    devs = select_all(devices) if isinstance(devices, str) or devices is None else devices
    devs = sorted(devs, key=lambda d: d.backend != "opencl")  # reference first: OpenCL
    if global_size is None:
        global_size = next(a.size for a in args if isinstance(a, np.ndarray))
    result = Comparison()
    for dev in devs:
        try:
            result.outputs[dev.selector] = _run_on(dev, source, kernel, args, global_size,
                                                   local_size, options)
        except AnygpuError as e:
            result.errors[dev.selector] = e
    if result.outputs:
        result.reference = next(iter(result.outputs))
        ref = result.outputs[result.reference]
        for sel, outs in list(result.outputs.items())[1:]:
            result.verdicts[sel] = {name: compare_arrays(outs[name], ref[name], rtol, atol)
                                    for name in ref}
    return result
