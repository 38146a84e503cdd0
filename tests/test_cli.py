#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of the anygpu command.

    python3 test_cli.py PATH/TO/anygpu [--expect-version X.Y.Z]

Runs the built binary for real (no mocks) and checks its text and JSON output,
its exit statuses, and, where clinfo and vulkaninfo are installed, that every
OpenCL and Vulkan device it lists agrees with what they report. Prints one
line per case and ends with "N passed, N failed, N skipped"; exits 1 on any
failure.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from cli_harness import CaseSkipped, run_cases

BACKENDS = ("cuda", "hip", "vulkan", "opencl", "cpu")
DEVICE_TYPES = ("discrete", "integrated", "virtual", "cpu", "other")
GPU_TYPES = ("discrete", "integrated", "virtual")

# Every device object (list entry or info) has these keys with these types.
DEVICE_KEYS = {
    "backend": str,
    "index": int,
    "selector": str,
    "name": str,
    "vendor": str,
    "vendor_id": int,
    "device_id": int,
    "type": str,
    "driver_version": str,
    "api_version": str,
    "global_mem_bytes": int,
    "max_alloc_bytes": int,
    "local_mem_bytes": int,
    "compute_units": int,
    "max_work_group_size": int,
    "max_work_item_sizes": list,
    "max_work_groups": list,
    "max_clock_mhz": int,
    "fp64": bool,
    "fp16": bool,
    "int64": bool,
    "unified_memory": bool,
    "subgroup_sizes": list,
    "pci": (str, type(None)),
    "uuid": (str, type(None)),
}
MEMORY_KEYS = {
    "total_bytes": int,
    "free_bytes": (int, type(None)),
    "allocated_bytes": int,
    "peak_allocated_bytes": int,
}
COMMAND_TIMEOUT_S = 120



def is_type(value, expected):
    # bool is a subclass of int in Python; JSON keeps them apart.
    if expected is int:
        return type(value) is int
    if isinstance(expected, tuple):
        return any(is_type(value, one) for one in expected)
    return isinstance(value, expected)


def type_name(expected):
    if isinstance(expected, tuple):
        return " or ".join("null" if one is type(None) else one.__name__ for one in expected)
    return expected.__name__


def single_line(text):
    """What the CLI prints for a driver's message: control characters as spaces."""
    return "".join(" " if ord(c) < 0x20 or ord(c) == 0x7F else c for c in text)


class Cli:
    def __init__(self, binary):
        self.binary = binary
        # The tests choose devices themselves; the caller's selection must not leak in.
        self.base_env = {k: v for k, v in os.environ.items() if k != "ANYGPU_DEVICE"}
        self._list_json = None

    def run(self, *args, env=None, stdout=subprocess.PIPE):
        full_env = dict(self.base_env)
        full_env.update(env or {})
        return subprocess.run(
            [self.binary, *args],
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=full_env,
            timeout=COMMAND_TIMEOUT_S,
        )

    def run_text(self, case, *args, env=None, strict_utf8=False):
        """Exit status, stdout and stderr. Text output passes a driver's bytes
        through; JSON output must be valid UTF-8 (strict_utf8)."""
        result = self.run(*args, env=env)
        try:
            out = result.stdout.decode("utf-8", "strict" if strict_utf8 else "replace")
        except UnicodeDecodeError as error:
            case.failures.append(f"anygpu {' '.join(args)}: stdout is not UTF-8: {error}")
            out = result.stdout.decode("utf-8", "replace")
        return result.returncode, out, result.stderr.decode("utf-8", "replace")

    def run_json(self, case, *args, env=None):
        code, out, err = self.run_text(case, *args, env=env, strict_utf8=True)
        case.require(code == 0, f"anygpu {' '.join(args)} exited {code}: {err.strip()}")
        try:
            return json.loads(out)
        except json.JSONDecodeError as error:
            case.require(False, f"anygpu {' '.join(args)}: output is not JSON: {error}\n{out}")

    def list_json(self, case):
        if self._list_json is None:
            self._list_json = self.run_json(case, "list", "--json")
        return self._list_json


def check_device_object(case, device, where):
    for key, expected in DEVICE_KEYS.items():
        if not case.check(key in device, f"{where}: key '{key}' missing"):
            continue
        value = device[key]
        case.check(
            is_type(value, expected),
            f"{where}: '{key}' is {json.dumps(value)}, expected {type_name(expected)}",
        )
    if case.failures:
        return
    label = f"{where} ({device['selector']})"
    case.check(device["backend"] in BACKENDS, f"{label}: unknown backend {device['backend']!r}")
    case.check(
        device["selector"] == f"{device['backend']}:{device['index']}",
        f"{label}: selector is not backend:index",
    )
    case.check(device["type"] in DEVICE_TYPES, f"{label}: unknown type {device['type']!r}")
    for key in ("vendor_id", "device_id", "global_mem_bytes", "max_alloc_bytes",
                "local_mem_bytes", "compute_units", "max_work_group_size", "max_clock_mhz"):
        case.check(device[key] >= 0, f"{label}: '{key}' is negative")
    for key in ("max_work_item_sizes", "max_work_groups"):
        values = device[key]
        case.check(
            len(values) == 3 and all(type(v) is int and v >= 0 for v in values),
            f"{label}: '{key}' is {values}, expected 3 non-negative integers",
        )
    sizes = device["subgroup_sizes"]
    case.check(
        len(sizes) <= 4 and all(type(v) is int and v > 0 for v in sizes),
        f"{label}: 'subgroup_sizes' is {sizes}, expected up to 4 positive integers",
    )
    if device["uuid"] is not None:
        case.check(re.fullmatch(r"[0-9a-f]{32}", device["uuid"]),
                   f"{label}: uuid {device['uuid']!r} is not 32 lowercase hex digits")
    if device["pci"] is not None:
        case.check(re.fullmatch(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]",
                                device["pci"]),
                   f"{label}: pci {device['pci']!r} is not dddd:bb:dd.f")


# ------------------------------------------------------------------ cases


def test_version(cli, case, options):
    code, out, err = cli.run_text(case, "--version")
    case.require(code == 0, f"--version exited {code}: {err.strip()}")
    match = re.fullmatch(r"anygpu (\d+\.\d+\.\d+)( \(git [\w.+-]+\))?( \(library \S+\))?\n", out)
    case.require(match, f"--version printed {out!r}, expected 'anygpu X.Y.Z [(git DESCRIPTION)]'")
    if options.expect_version:
        case.check(match.group(1) == options.expect_version,
                   f"--version says {match.group(1)}, the project is {options.expect_version}")
    listing = cli.list_json(case)
    case.check(listing.get("version") == match.group(1),
               f"list --json says version {listing.get('version')!r}, --version {match.group(1)}")


def test_help(cli, case, options):
    for spelling in ("--help", "-h", "help"):
        code, out, err = cli.run_text(case, spelling)
        case.check(code == 0, f"'{spelling}' exited {code}")
        case.check("Usage: anygpu" in out and " list" in out and " info" in out,
                   f"'{spelling}' printed no usage: {out!r}")
    code, out, err = cli.run_text(case, "list", "--help")
    case.check(code == 0 and "Usage: anygpu" in out, "'list --help' printed no usage")
    code, out, err = cli.run_text(case)
    case.check(code == 2, f"no arguments exited {code}, expected 2")
    case.check("Usage: anygpu" in err and out == "", "no arguments: the usage belongs on stderr")


COMMANDS = ("list", "info", "doctor", "compile", "test", "run", "bench")


def test_command_help(cli, case, options):
    """Every command answers --help (and -h, and help COMMAND) with its own
    usage on stdout and exit 0."""
    for command in COMMANDS:
        for args in ((command, "--help"), (command, "-h"), ("help", command)):
            code, out, err = cli.run_text(case, *args)
            shown = " ".join(args)
            case.check(code == 0, f"'anygpu {shown}' exited {code}: {err.strip()}")
            case.check(out.startswith(f"Usage: anygpu {command}"),
                       f"'anygpu {shown}' printed {out[:80]!r}, not its own usage")
    # --help after other arguments still wins, before any "--".
    code, out, _ = cli.run_text(case, "run", "k.cl", "--kernel", "k", "--help")
    case.check(code == 0 and out.startswith("Usage: anygpu run"), f"run k.cl --help: exit {code}")


def test_help_lists_targets(cli, case, options):
    code, out, _ = cli.run_text(case, "--help")
    for word in ("spirv", "--fp16", "--no-fp64", "--atol", "--rtol", "--ulp"):
        case.check(word in out, f"anygpu --help does not mention {word}")
    code, out, _ = cli.run_text(case, "compile", "--help")
    for target in ("opencl", "cuda", "hip", "glsl", "c,", "spirv"):
        case.check(target in out, f"anygpu compile --help does not list {target}")


def test_compile_output(cli, case, options):
    """-o - writes to stdout; the GLSL one-shader-per-kernel error names --kernel."""
    work = tempfile.mkdtemp(prefix="anygpu-cli-test-")
    try:
        two = os.path.join(work, "two.cl")
        with open(two, "w", encoding="utf-8") as file:
            file.write("__kernel void a(__global int *x) { x[0] = 1; }\n"
                       "__kernel void b(__global int *x) { x[0] = 2; }\n")
        code, out, err = cli.run_text(case, "compile", two, "-o", "-")
        case.check(code == 0 and "__kernel void a" in out and not os.path.exists("-"),
                   f"compile -o -: exit {code}, stdout {out[:80]!r}: {err.strip()}")
        for target in ("glsl", "spirv"):
            code, out, err = cli.run_text(case, "compile", two, "--target", target, "-o", "-")
            case.check(code == 1 and err.count("\n") == 1 and "pass --kernel NAME" in err
                       and "one of: a, b" in err,
                       f"compile --target {target} with two kernels: exit {code}, stderr {err!r}")
        code, out, err = cli.run_text(case, "compile", two, "--target", "glsl", "--kernel", "b")
        case.check(code == 0 and "#version" in out, f"compile --target glsl --kernel b: exit {code}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_usage_error(cli, case, args, expected_line):
    code, out, err = cli.run_text(case, *args)
    shown = " ".join(args)
    case.check(code == 2, f"'anygpu {shown}' exited {code}, expected 2")
    case.check(out == "", f"'anygpu {shown}' wrote to stdout: {out!r}")
    case.check(err == expected_line + "\n",
               f"'anygpu {shown}' stderr is {err!r}, expected {expected_line!r}")


def test_usage_errors(cli, case, options):
    check_usage_error(cli, case, ["frobnicate"],
                      "anygpu: unknown command 'frobnicate' (try anygpu --help)")
    check_usage_error(cli, case, ["--frobnicate"],
                      "anygpu: unknown option '--frobnicate' (try anygpu --help)")
    check_usage_error(cli, case, ["list", "--bogus"],
                      "anygpu: unknown option '--bogus' (try anygpu --help)")
    check_usage_error(cli, case, ["list", "cpu:0"],
                      "anygpu: unexpected argument 'cpu:0' (try anygpu --help)")
    check_usage_error(cli, case, ["info", "cpu:0", "cpu:0"],
                      "anygpu: unexpected argument 'cpu:0' (try anygpu --help)")
    check_usage_error(cli, case, ["--version", "x"],
                      "anygpu: unexpected argument 'x' (try anygpu --help)")


def test_list_json_schema(cli, case, options):
    listing = cli.list_json(case)
    case.require(isinstance(listing, dict), "list --json is not one object")
    for key, expected in (("version", str), ("devices", list), ("unavailable", list),
                          ("backends", list)):
        case.require(key in listing and isinstance(listing[key], expected),
                     f"list --json: top-level '{key}' missing or not {expected.__name__}")
    for position, device in enumerate(listing["devices"]):
        case.require(isinstance(device, dict), f"devices[{position}] is not an object")
        check_device_object(case, device, f"devices[{position}]")
    case.require(not case.failures, "device objects malformed")

    selectors = [d["selector"] for d in listing["devices"]]
    case.check(len(selectors) == len(set(selectors)), f"duplicate selectors: {selectors}")
    backends_with_devices = {d["backend"] for d in listing["devices"]}
    listed_unavailable = set()
    for position, entry in enumerate(listing["unavailable"]):
        where = f"unavailable[{position}]"
        case.require(isinstance(entry, dict), f"{where} is not an object")
        case.check(entry.get("backend") in BACKENDS, f"{where}: backend {entry.get('backend')!r}")
        case.check(isinstance(entry.get("reason"), str) and entry["reason"] != "",
                   f"{where}: reason missing or empty")
        case.check(isinstance(entry.get("available"), bool), f"{where}: available not a bool")
        case.check(entry.get("backend") not in backends_with_devices,
                   f"{where}: {entry.get('backend')} has devices but is listed as unavailable")
        listed_unavailable.add(entry.get("backend"))
    for backend in BACKENDS:
        case.check(backend in backends_with_devices or backend in listed_unavailable,
                   f"backend {backend} has no devices and no 'unavailable' entry")
    counts = {b.get("name"): b.get("device_count") for b in listing["backends"]}
    for backend in BACKENDS:
        expected = sum(1 for d in listing["devices"] if d["backend"] == backend)
        case.check(counts.get(backend) == expected,
                   f"backends: {backend} has device_count {counts.get(backend)}, "
                   f"but {expected} devices are listed")


def test_list_text(cli, case, options):
    listing = cli.list_json(case)
    code, out, err = cli.run_text(case, "list")
    case.require(code == 0, f"list exited {code}: {err.strip()}")
    lines = out.splitlines()
    devices = listing["devices"]
    if devices:
        header = lines[0]
        case.require(re.match(r"SELECTOR\s+NAME\s+TYPE\s+MEMORY\s+CU\s+SUBGROUP\s+UUID\s+DRIVER$", header),
                     f"list: unexpected header {header!r}")
        name_column = header.index("NAME")
        for device in devices:
            rows = [line for line in lines[1:len(devices) + 1]
                    if line.startswith(device["selector"] + " ")]
            if not case.check(len(rows) == 1, f"list: no single row for {device['selector']}"):
                continue
            row = rows[0]
            case.check(row[name_column - 2:name_column] == "  "
                       and row[name_column:].startswith(single_line(device["name"])),
                       f"list: {device['selector']}'s name is not in the NAME column: {row!r}")
            case.check(f" {device['type']} " in row, f"list: {device['selector']} lacks its type")
            case.check(row == row.rstrip(), f"list: trailing blanks in {row!r}")
    case.check(any(line.startswith("cpu:0 ") for line in lines), "list: no cpu:0 row")

    unavailable = {entry["backend"]: entry for entry in listing["unavailable"]}
    for backend in ("cuda", "hip", "vulkan"):
        if backend not in unavailable:
            case.check(any(line.startswith(backend + ":") for line in lines),
                       f"list: {backend} has devices in --json but no row")
            continue
        entry = unavailable[backend]
        matching = [line for line in lines if re.match(rf"  {backend}\s", line)]
        if not case.check(len(matching) == 1, f"list: no single line for backend {backend}"):
            continue
        state = "unavailable" if not entry["available"] else "no devices"
        case.check(state in matching[0], f"list: {backend} line does not say '{state}'")
        if entry["reason"] != "no devices":
            case.check(single_line(entry["reason"]) in matching[0],
                       f"list: {backend} line lacks its reason {entry['reason']!r}")
    # The HIP backend is real: without an AMD GPU it says why, in its line.
    hip = next(b for b in listing["backends"] if b["name"] == "hip")
    case.check("backend yet" not in hip["reason"], f"list: hip says {hip['reason']!r}")
    if hip["library"] and not hip["available"] and not os.path.exists("/dev/kfd"):
        line = next((l for l in lines if re.match(r"  hip\s", l)), "")
        for words in ("is installed but sees no AMD GPU", "hipGetDeviceCount returned "
                      "hipErrorNoDevice (100)", "/dev/kfd is absent"):
            case.check(words in line, f"list: the hip line lacks {words!r}: {line!r}")


def parse_clinfo_raw(text):
    """Devices in order, each a dict of CL_DEVICE_* property -> value text."""
    devices = {}
    for line in text.splitlines():
        match = re.match(r"\[([^/\]]+)/(\d+)\]\s+(CL_\w+)\s*(.*)$", line)
        if match:
            key = (match.group(1), int(match.group(2)))
            devices.setdefault(key, {})[match.group(3)] = match.group(4).strip()
    return list(devices.values())  # dicts keep the order devices first appear in


def test_opencl_matches_clinfo(cli, case, options):
    clinfo = shutil.which("clinfo")
    if not clinfo:
        raise CaseSkipped("clinfo is not installed (Debian: apt-get install clinfo)")
    listing = cli.list_json(case)
    opencl_devices = sorted((d for d in listing["devices"] if d["backend"] == "opencl"),
                            key=lambda d: d["index"])
    backend = next(b for b in listing["backends"] if b["name"] == "opencl")
    result = subprocess.run([clinfo, "--raw"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=cli.base_env, timeout=COMMAND_TIMEOUT_S)
    clinfo_devices = parse_clinfo_raw(result.stdout.decode("utf-8", "replace"))
    if not backend["available"]:
        raise CaseSkipped(f"anygpu's opencl backend is unavailable ({backend['reason']}); "
                          f"clinfo sees {len(clinfo_devices)} device(s)")
    case.require(len(clinfo_devices) == len(opencl_devices),
                 f"clinfo sees {len(clinfo_devices)} OpenCL device(s), "
                 f"anygpu lists {len(opencl_devices)}")
    if not opencl_devices:
        raise CaseSkipped("no OpenCL devices on this machine (clinfo agrees)")
    for device, native in zip(opencl_devices, clinfo_devices):
        label = device["selector"]
        expected = {
            "name": native.get("CL_DEVICE_NAME"),
            "vendor": native.get("CL_DEVICE_VENDOR"),
            "vendor_id": native.get("CL_DEVICE_VENDOR_ID"),
            "type": native.get("CL_DEVICE_TYPE"),
            "driver_version": native.get("CL_DRIVER_VERSION"),
            "api_version": native.get("CL_DEVICE_VERSION"),
            "compute_units": native.get("CL_DEVICE_MAX_COMPUTE_UNITS"),
            "global_mem_bytes": native.get("CL_DEVICE_GLOBAL_MEM_SIZE"),
            "max_alloc_bytes": native.get("CL_DEVICE_MAX_MEM_ALLOC_SIZE"),
            "local_mem_bytes": native.get("CL_DEVICE_LOCAL_MEM_SIZE"),
            "max_work_group_size": native.get("CL_DEVICE_MAX_WORK_GROUP_SIZE"),
            "max_work_item_sizes": native.get("CL_DEVICE_MAX_WORK_ITEM_SIZES"),
            "max_clock_mhz": native.get("CL_DEVICE_MAX_CLOCK_FREQUENCY"),
        }
        for key, native_value in expected.items():
            if not case.check(native_value is not None, f"{label}: clinfo --raw gave no {key}"):
                continue
            ours = device[key]
            if key in ("name", "vendor", "driver_version", "api_version"):
                ok = ours.strip() == native_value
            elif key == "vendor_id":
                ok = ours == int(native_value, 0)
            elif key == "type":
                # clinfo prints CL_DEVICE_TYPE_GPU for discrete and integrated alike.
                kinds = {"CL_DEVICE_TYPE_CPU": ("cpu",), "CL_DEVICE_TYPE_GPU": GPU_TYPES}
                ok = ours in kinds.get(native_value, ("other",))
            elif key == "max_work_item_sizes":
                ok = " ".join(str(v) for v in ours) == " ".join(native_value.split()[:3])
            else:
                ok = str(ours) == native_value
            case.check(ok, f"{label}: {key} {ours!r}, clinfo says {native_value!r}")
        # Printed only by some clinfo versions and devices: compared where present.
        unified = native.get("CL_DEVICE_HOST_UNIFIED_MEMORY")
        if unified in ("CL_TRUE", "CL_FALSE"):
            case.check(device["unified_memory"] == (unified == "CL_TRUE"),
                       f"{label}: unified_memory {device['unified_memory']}, clinfo says {unified}")
        double = native.get("CL_DEVICE_DOUBLE_FP_CONFIG")
        if double is not None:
            has_fp64 = double not in ("", "0", "None")
            case.check(device["fp64"] == has_fp64,
                       f"{label}: fp64 {device['fp64']}, clinfo's double config is {double!r}")


VULKAN_TYPES = {
    "PHYSICAL_DEVICE_TYPE_DISCRETE_GPU": "discrete",
    "PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU": "integrated",
    "PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU": "virtual",
    "PHYSICAL_DEVICE_TYPE_CPU": "cpu",
    "PHYSICAL_DEVICE_TYPE_OTHER": "other",
}


def parse_vulkaninfo_summary(text):
    """Devices in order from the "Devices:" section, each a dict of field -> value text."""
    devices = []
    in_devices = False
    for line in text.splitlines():
        if line.startswith("Devices:"):
            in_devices = True
        elif in_devices and re.match(r"GPU\d+:\s*$", line):
            devices.append({})
        elif in_devices and devices:
            match = re.match(r"\s+(\w+)\s*=\s?(.*)$", line)
            if match:
                devices[-1][match.group(1)] = match.group(2).rstrip()
    return devices


def test_vulkan_matches_vulkaninfo(cli, case, options):
    vulkaninfo = shutil.which("vulkaninfo")
    if not vulkaninfo:
        raise CaseSkipped("vulkaninfo is not installed (Debian: apt-get install vulkan-tools)")
    listing = cli.list_json(case)
    vulkan_devices = sorted((d for d in listing["devices"] if d["backend"] == "vulkan"),
                            key=lambda d: d["index"])
    backend = next(b for b in listing["backends"] if b["name"] == "vulkan")
    # vulkaninfo prints XDG_RUNTIME_DIR and display warnings on stderr: ignored.
    result = subprocess.run([vulkaninfo, "--summary"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=cli.base_env, timeout=COMMAND_TIMEOUT_S)
    native_devices = parse_vulkaninfo_summary(result.stdout.decode("utf-8", "replace"))
    if not backend["available"]:
        raise CaseSkipped(f"anygpu's vulkan backend is unavailable ({backend['reason']}); "
                          f"vulkaninfo sees {len(native_devices)} device(s)")
    case.require(result.returncode == 0 or native_devices,
                 f"vulkaninfo --summary exited {result.returncode}: "
                 f"{result.stderr.decode('utf-8', 'replace').strip()[-400:]}")
    case.require(len(native_devices) == len(vulkan_devices),
                 f"vulkaninfo sees {len(native_devices)} Vulkan device(s), "
                 f"anygpu lists {len(vulkan_devices)}")
    if not vulkan_devices:
        raise CaseSkipped("no Vulkan devices on this machine (vulkaninfo agrees)")
    for device, native in zip(vulkan_devices, native_devices):
        label = device["selector"]
        for field in ("deviceName", "deviceType", "vendorID", "deviceID", "apiVersion",
                      "deviceUUID"):
            case.require(field in native, f"{label}: vulkaninfo --summary gave no {field}")
        uuid = native["deviceUUID"].replace("-", "").lower()
        expected = {
            "name": native["deviceName"],
            "type": VULKAN_TYPES.get(native["deviceType"], "other"),
            "vendor_id": int(native["vendorID"], 16),
            "device_id": int(native["deviceID"], 16),
            "api_version": f"Vulkan {native['apiVersion']}",
            "uuid": uuid,
        }
        # anygpu prints driverName and driverInfo where the driver gives them
        # (Vulkan 1.2); otherwise the raw driverVersion, which vulkaninfo decodes
        # per vendor, so only the first form is compared.
        if native.get("driverInfo") and native.get("driverName"):
            expected["driver_version"] = (f"{native['driverName'][:40]} "
                                          f"{native['driverInfo'][:80]}")
        for key, value in expected.items():
            case.check(device[key] == value,
                       f"{label}: {key} {device[key]!r}, vulkaninfo says {value!r}")


def check_info_json(case, info, device):
    label = f"info {device['selector']} --json"
    check_device_object(case, info, label)
    for key in DEVICE_KEYS:
        if key in info:
            case.check(info[key] == device[key],
                       f"{label}: '{key}' is {info[key]!r}, list says {device[key]!r}")
    memory = info.get("memory")
    if not case.check(isinstance(memory, dict), f"{label}: 'memory' missing or not an object"):
        return
    for key, expected in MEMORY_KEYS.items():
        case.check(key in memory and is_type(memory[key], expected),
                   f"{label}: memory '{key}' missing or not {type_name(expected)}")


def test_info_json_matches_list(cli, case, options):
    listing = cli.list_json(case)
    cpu = [d for d in listing["devices"] if d["selector"] == "cpu:0"]
    case.require(cpu, "list --json has no cpu:0 device")
    case.check(cpu[0]["type"] == "cpu", f"cpu:0 has type {cpu[0]['type']!r}")
    for device in listing["devices"]:
        check_info_json(case, cli.run_json(case, "info", device["selector"], "--json"), device)
    # Options may come before the selector.
    check_info_json(case, cli.run_json(case, "info", "--json", "cpu:0"), cpu[0])


def test_info_text(cli, case, options):
    listing = cli.list_json(case)
    device = next(d for d in listing["devices"] if d["selector"] == "cpu:0")
    code, out, err = cli.run_text(case, "info", "cpu:0")
    case.require(code == 0, f"info cpu:0 exited {code}: {err.strip()}")
    fields = {}
    for line in out.splitlines():
        match = re.fullmatch(r"([a-z0-9_.]+):\s+(\S.*)", line)
        if case.check(match, f"info cpu:0: line {line!r} is not 'key: value'"):
            fields[match.group(1)] = match.group(2)
    expected_keys = list(DEVICE_KEYS) + [f"memory.{key}" for key in MEMORY_KEYS]
    for key in expected_keys:
        case.check(key in fields, f"info cpu:0: no '{key}' line")
    case.require(not case.failures, "info text malformed")
    case.check(fields["selector"] == "cpu:0", "info cpu:0: wrong selector")
    case.check(fields["name"] == single_line(device["name"]).strip() or not device["name"],
               f"info cpu:0: name {fields['name']!r}, list says {device['name']!r}")
    total = device["global_mem_bytes"]
    exact = f"({total} bytes)" if total >= 1024 else f"{total} B"
    case.check(exact in fields["global_mem_bytes"],
               f"info cpu:0: global_mem_bytes {fields['global_mem_bytes']!r} lacks {exact!r}")
    case.check(re.search(r"\d(\.\d)? (B|KiB|MiB|GiB|TiB|PiB|EiB)", fields["global_mem_bytes"]),
               "info cpu:0: global_mem_bytes has no human unit")
    case.check(fields["compute_units"] == str(device["compute_units"]),
               "info cpu:0: compute_units differs from the list")
    for key in ("fp64", "fp16", "int64", "unified_memory"):
        case.check(fields[key] == ("yes" if device[key] else "no"),
                   f"info cpu:0: {key} is {fields[key]!r}")


def test_info_bad_selector(cli, case, options):
    for selector in ("bogus:7", "cpu:99"):
        code, out, err = cli.run_text(case, "info", selector)
        case.check(code == 1, f"info {selector} exited {code}, expected 1")
        case.check(out == "", f"info {selector} wrote to stdout: {out!r}")
        lines = err.splitlines()
        case.check(len(lines) == 1 and err.endswith("\n"),
                   f"info {selector}: stderr has {len(lines)} lines: {err!r}")
        case.check(err.startswith("anygpu: ") and len(err.strip()) > len("anygpu: "),
                   f"info {selector}: stderr {err!r} is not 'anygpu: <message>'")
        code, out, err = cli.run_text(case, "info", selector, "--json")
        case.check(code == 1 and out == "", f"info {selector} --json: exit {code}, stdout {out!r}")


def test_info_uses_anygpu_device(cli, case, options):
    listing = cli.list_json(case)
    info = cli.run_json(case, "info", "--json", env={"ANYGPU_DEVICE": "cpu:0"})
    case.check(info.get("selector") == "cpu:0",
               f"ANYGPU_DEVICE=cpu:0 anygpu info picked {info.get('selector')!r}")
    # Every other device too, so that a default that happens to be cpu:0 cannot pass.
    for device in listing["devices"][:6]:
        info = cli.run_json(case, "info", "--json", env={"ANYGPU_DEVICE": device["selector"]})
        case.check(info.get("selector") == device["selector"],
                   f"ANYGPU_DEVICE={device['selector']} anygpu info picked "
                   f"{info.get('selector')!r}")
    # An explicit selector wins over the variable.
    info = cli.run_json(case, "info", "cpu:0", "--json", env={"ANYGPU_DEVICE": "bogus:7"})
    case.check(info.get("selector") == "cpu:0",
               "an explicit selector did not override ANYGPU_DEVICE")


LAUNCHER_VARIABLES = ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
                      "PMI_LOCAL_RANK")


def test_info_local_rank(cli, case, options):
    """'@local' (issue 24): each launcher variable's rank picks the Nth CPU
    device, and info shows which variable gave which rank."""
    listing = cli.list_json(case)
    cpus = [d["selector"] for d in listing["devices"] if d["type"] == "cpu"]
    saved = {k: cli.base_env.pop(k) for k in LAUNCHER_VARIABLES if k in cli.base_env}
    try:
        info = cli.run_json(case, "info", "--json", env={"ANYGPU_DEVICE": "*:cpu@local"})
        case.check(info.get("local_rank") == {"rank": 0, "variable": None, "selector": "*:cpu@local"},
                   f"no launcher variable: local_rank is {info.get('local_rank')!r}")
        first = info.get("selector")
        for variable in LAUNCHER_VARIABLES:
            for rank in range(len(cpus) + 1):
                env = {"ANYGPU_DEVICE": "*:cpu@local", variable: str(rank)}
                info = cli.run_json(case, "info", "--json", env=env)
                case.check(info.get("local_rank", {}).get("variable") == variable
                           and info["local_rank"]["rank"] == rank,
                           f"{variable}={rank}: local_rank is {info.get('local_rank')!r}")
                if rank == 0 or rank == len(cpus):  # wraps around to the first
                    case.check(info.get("selector") == first,
                               f"{variable}={rank} picked {info.get('selector')!r}, not {first!r}")
                elif rank == 1:
                    case.check(info.get("selector") != first,
                               f"{variable}=1 picked the same device as rank 0")
        code, out, err = cli.run_text(case, "info", "*:*@local",
                                      env={"OMPI_COMM_WORLD_LOCAL_RANK": "1"})
        case.check(code == 0 and re.search(
            r"^local_rank:\s+1 \(OMPI_COMM_WORLD_LOCAL_RANK\) of '\*:\*@local'$", out, re.M),
                   f"info text has no local_rank line: {out[:300]!r} {err!r}")
        code, out, err = cli.run_text(case, "info", "*:*@locale")
        case.check(code == 1 and "@locale" in err, f"'*:*@locale': exit {code}, {err!r}")
        code, out, err = cli.run_text(case, "info", "*:*@local", env={"SLURM_LOCALID": "x"})
        case.check(code == 1 and "SLURM_LOCALID='x'" in err, f"SLURM_LOCALID=x: {err!r}")
    finally:
        cli.base_env.update(saved)


def test_info_default_is_best(cli, case, options):
    listing = cli.list_json(case)
    info = cli.run_json(case, "info", "--json")
    selectors = [d["selector"] for d in listing["devices"]]
    case.require(info.get("selector") in selectors,
                 f"info picked {info.get('selector')!r}, not a listed device")
    types = {d["type"] for d in listing["devices"]}
    if "discrete" in types:
        case.check(info["type"] == "discrete", f"default is {info['type']}, a discrete GPU exists")
    elif types & set(GPU_TYPES):
        case.check(info["type"] in GPU_TYPES, f"default is {info['type']}, a GPU exists")


def test_write_error_is_reported(cli, case, options):
    if not os.path.exists("/dev/full"):
        raise CaseSkipped("/dev/full does not exist here")
    for args in (["list"], ["list", "--json"], ["info", "cpu:0"]):
        with open("/dev/full", "w") as full:
            result = cli.run(*args, stdout=full)
        err = result.stderr.decode("utf-8", "replace")
        case.check(result.returncode == 1,
                   f"anygpu {' '.join(args)} > /dev/full exited {result.returncode}, expected 1")
        case.check("anygpu: cannot write the output" in err,
                   f"anygpu {' '.join(args)} > /dev/full: stderr {err!r}")


PHYSICAL_KEYS = {
    "id": str,
    "index": int,
    "name": str,
    "type": str,
    "vendor_id": int,
    "device_id": int,
    "global_mem_bytes": int,
    "pci": (str, type(None)),
    "uuid": (str, type(None)),
    "devices": list,
    "match": str,
    "uncertain": bool,
    "duplicate_in_backend": bool,
    "duplicate_backend": (str, type(None)),
}


def test_list_physical(cli, case, options):
    listing = cli.list_json(case)
    physical = listing.get("physical")
    case.require(isinstance(physical, list), "list --json: 'physical' missing or not a list")
    for position, group in enumerate(physical):
        for key, expected in PHYSICAL_KEYS.items():
            case.check(key in group and is_type(group[key], expected),
                       f"physical[{position}]: '{key}' missing or not {type_name(expected)}")
    case.require(not case.failures, "physical entries malformed")
    for position, group in enumerate(physical):
        case.check(group["id"] == f"phys:{position}" and group["index"] == position,
                   f"physical[{position}] is {group['id']}")
        case.check(group["match"] in ("single", "pci", "uuid", "guess", "cpu"),
                   f"{group['id']}: match {group['match']!r}")
        case.check(group["uncertain"] == (group["match"] == "guess"),
                   f"{group['id']}: uncertain is {group['uncertain']} for match {group['match']}")
        case.check(group["devices"], f"{group['id']} has no devices")
    members = [selector for group in physical for selector in group["devices"]]
    selectors = [d["selector"] for d in listing["devices"]]
    case.check(sorted(members) == sorted(selectors),
               f"physical members {members} are not the devices {selectors}, once each")
    by_selector = {d["selector"]: d for d in listing["devices"]}
    cpu_groups = [g for g in physical if g["match"] == "cpu"]
    cpu_devices = sorted(d["selector"] for d in listing["devices"] if d["type"] == "cpu")
    case.require(len(cpu_groups) == 1, f"{len(cpu_groups)} physical CPUs, expected 1")
    case.check(sorted(cpu_groups[0]["devices"]) == cpu_devices,
               f"the physical CPU holds {cpu_groups[0]['devices']}, the CPU devices are "
               f"{cpu_devices}")
    case.check(physical[-1]["match"] == "cpu", "the physical CPU is not listed last")
    for group in physical:
        if group["pci"] is None:
            continue
        for selector in group["devices"]:
            pci = by_selector[selector]["pci"]
            if pci is not None and group["match"] in ("pci", "single"):
                case.check(pci.lower() == group["pci"], f"{selector} at {pci} in {group['id']}")
    code, out, err = cli.run_text(case, "list")
    case.require(code == 0, f"list exited {code}")
    case.check("\nPhysical devices:\n" in out, "list: no 'Physical devices:' section")
    for group in physical:
        rows = [line for line in out.splitlines() if line.strip().startswith(group["id"] + " ")]
        case.check(len(rows) == 1 and all(s in rows[0] for s in group["devices"]),
                   f"list: no row for {group['id']} with {group['devices']}")


def test_physical_selectors(cli, case, options):
    listing = cli.list_json(case)
    for group in listing["physical"]:
        info = cli.run_json(case, "info", group["id"], "--json")
        case.check(info.get("selector") in group["devices"],
                   f"info {group['id']} picked {info.get('selector')!r}, not one of "
                   f"{group['devices']}")
        if group["pci"]:
            info = cli.run_json(case, "info", f"pci:{group['pci']}", "--json")
            case.check(info.get("selector") in group["devices"],
                       f"info pci:{group['pci']} picked {info.get('selector')!r}")
    cpu = next(g for g in listing["physical"] if g["match"] == "cpu")
    info = cli.run_json(case, "info", "--json", env={"ANYGPU_DEVICE": cpu["id"]})
    case.check(info.get("selector") in cpu["devices"],
               f"ANYGPU_DEVICE={cpu['id']} picked {info.get('selector')!r}")
    # Discard wins: excluding the physical device leaves none of its members.
    others = [d["selector"] for d in listing["devices"] if d["selector"] not in cpu["devices"]]
    code, out, err = cli.run_text(case, "info", f"*:*;!{cpu['id']}")
    if others:
        case.check(code == 0, f"info '*:*;!{cpu['id']}' exited {code}")
    else:
        case.check(code == 1 and f"physical devices: phys:0" in err,
                   f"info '*:*;!{cpu['id']}': exit {code}, stderr {err!r}")
    for selector, fragment in (("phys:99", "physical devices: phys:0"),
                               ("pci:zz", "bad PCI address 'zz'"),
                               ("pci:0000:99:1f.7", "no device matches")):
        code, out, err = cli.run_text(case, "info", selector)
        case.check(code == 1 and fragment in err and err.count("\n") == 1,
                   f"info {selector}: exit {code}, stderr {err!r}")


CASES = [
    test_version,
    test_help,
    test_command_help,
    test_help_lists_targets,
    test_compile_output,
    test_usage_errors,
    test_list_json_schema,
    test_list_text,
    test_opencl_matches_clinfo,
    test_vulkan_matches_vulkaninfo,
    test_info_json_matches_list,
    test_info_text,
    test_info_bad_selector,
    test_info_uses_anygpu_device,
    test_info_local_rank,
    test_info_default_is_best,
    test_write_error_is_reported,
    test_list_physical,
    test_physical_selectors,
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", help="the built anygpu executable")
    parser.add_argument("--expect-version", help="the version --version must print")
    options = parser.parse_args()
    cli = Cli(os.path.abspath(options.binary))
    return run_cases(CASES, cli, options)


if __name__ == "__main__":
    sys.exit(main())
