#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of `anygpu doctor`.

    python3 test_doctor.py PATH/TO/anygpu [--test-library PATH/TO/libdoctor_test_library.so]

Runs the built binary for real: on this machine as it is, with faults
injected through the environment of the spawned doctor (OCL_ICD_VENDORS,
VK_DRIVER_FILES, LD_LIBRARY_PATH, CUDA_VISIBLE_DEVICES, ANYGPU_DEVICE), and
on machines staged in temporary directories through --sysroot (an NVIDIA GPU
with no driver, /dev/kfd owned by a group the user is not in, a hybrid
Intel + NVIDIA laptop, a kernel module whose version differs from libcuda's).
Each case checks the finding, its evidence and its fix, in JSON and in text.
Prints one line per case and ends with "N passed, N failed, N skipped".
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

from cli_harness import CaseSkipped, run_cases

BACKENDS = ("cuda", "hip", "vulkan", "opencl", "cpu", "null")
SEVERITIES = ("ok", "info", "warning", "error")
COMMAND_TIMEOUT_S = 120


def cuda_stubs_directory():
    """The CUDA toolkit's stubs/ directory holding libcuda.so, or None."""
    roots = [os.environ.get(name) for name in ("CUDA_HOME", "CUDA_PATH")]
    roots += ["/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-*"), reverse=True)
    for root in filter(None, roots):
        for sub in ("lib64/stubs", "lib/stubs", "targets/x86_64-linux/lib/stubs"):
            directory = os.path.join(root, sub)
            if os.path.exists(os.path.join(directory, "libcuda.so")):
                return directory
    return None



class Doctor:
    def __init__(self, binary, test_library):
        self.binary = binary
        self.test_library = test_library
        # The variables the cases inject must not leak in from the caller.
        injected = ("ANYGPU_DEVICE", "OCL_ICD_VENDORS", "OCL_ICD_FILENAMES", "VK_DRIVER_FILES",
                    "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES", "CUDA_VISIBLE_DEVICES",
                    "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION")
        self.base_env = {k: v for k, v in os.environ.items() if k not in injected}
        self._baseline = None

    def run(self, *args, env=None, stdout=subprocess.PIPE):
        full_env = dict(self.base_env)
        full_env.update(env or {})
        return subprocess.run([self.binary, *args], stdout=stdout, stderr=subprocess.PIPE,
                              env=full_env, timeout=COMMAND_TIMEOUT_S)

    def json(self, case, *args, env=None):
        result = self.run("doctor", "--json", *args, env=env)
        err = result.stderr.decode("utf-8", "replace")
        case.require(result.returncode == 0,
                     f"doctor --json {' '.join(args)} exited {result.returncode}: {err.strip()}")
        try:
            report = json.loads(result.stdout.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            case.require(False, f"doctor --json {' '.join(args)}: not JSON: {error}")
        check_report_schema(case, report)
        return report

    def text(self, case, *args, env=None):
        result = self.run("doctor", *args, env=env)
        err = result.stderr.decode("utf-8", "replace")
        case.require(result.returncode == 0,
                     f"doctor {' '.join(args)} exited {result.returncode}: {err.strip()}")
        return result.stdout.decode("utf-8", "replace")

    def baseline(self, case):
        if self._baseline is None:
            self._baseline = self.json(case)
        return self._baseline


def check_report_schema(case, report):
    case.require(isinstance(report, dict), "doctor --json is not one object")
    for key, kind in (("backends", list), ("findings", list), ("pci", list), ("physical", list),
                      ("devices", list), ("summary", dict), ("version", str)):
        case.require(isinstance(report.get(key), kind), f"doctor --json: '{key}' missing or not "
                                                        f"{kind.__name__}")
    names = [b.get("name") for b in report["backends"]]
    case.check(names == list(BACKENDS), f"backends are {names}, expected {list(BACKENDS)}")
    for backend in report["backends"]:
        for key, kind in (("available", bool), ("device_count", int), ("library", str),
                          ("reason", str), ("attempts", list), ("probe", dict),
                          ("environment", dict)):
            case.check(isinstance(backend.get(key), kind),
                       f"backends[{backend.get('name')}].{key} missing or not {kind.__name__}")
        for attempt in backend.get("attempts", []):
            case.check(isinstance(attempt.get("name"), str) and isinstance(attempt.get("error"), str),
                       f"backends[{backend.get('name')}].attempts entry malformed: {attempt}")
    for position, finding in enumerate(report["findings"]):
        for key in ("severity", "check", "what", "evidence", "fix"):
            case.check(isinstance(finding.get(key), str), f"findings[{position}].{key} not a string")
        case.check(finding.get("severity") in SEVERITIES,
                   f"findings[{position}]: severity {finding.get('severity')!r}")
        case.check(finding.get("what"), f"findings[{position}]: 'what' is empty")
    order = [SEVERITIES.index(f["severity"]) for f in report["findings"]
             if f.get("severity") in SEVERITIES]
    case.check(order == sorted(order, reverse=True), "findings are not most severe first")
    counts = {s: sum(1 for f in report["findings"] if f.get("severity") == s) for s in SEVERITIES}
    case.check(report["summary"] == counts, f"summary {report['summary']} != counts {counts}")


def findings(report, check):
    return [f for f in report["findings"] if f["check"] == check]


def require_finding(case, report, check, severity, *fragments, where=""):
    """The one finding of `check` whose text holds every fragment."""
    candidates = findings(report, check)
    for finding in candidates:
        text = " | ".join((finding["what"], finding["evidence"], finding["fix"]))
        if all(fragment in text for fragment in fragments):
            case.check(finding["severity"] == severity,
                       f"{where}{check}: severity {finding['severity']}, expected {severity}")
            return finding
    shown = "\n    ".join(f"{f['severity']} {f['what']} | {f['evidence']} | {f['fix']}"
                          for f in candidates) or "(none)"
    case.require(False, f"{where}no {check} finding with {list(fragments)}; found:\n    {shown}")


def backend(report, name):
    return next(b for b in report["backends"] if b["name"] == name)


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)
    if mode is not None:
        os.chmod(path, mode)


def stage_pci_gpu(root, address, vendor, device, driver=None):
    base = os.path.join(root, "sys/bus/pci/devices", address)
    write(os.path.join(base, "class"), "0x030000\n")
    write(os.path.join(base, "vendor"), f"0x{vendor:04x}\n")
    write(os.path.join(base, "device"), f"0x{device:04x}\n")
    if driver:
        os.symlink(f"../../../bus/pci/drivers/{driver}", os.path.join(base, "driver"))


def host_has_loadable(report, backend_name):
    return any(a["error"] == "" for a in backend(report, backend_name)["attempts"])


# ------------------------------------------------------------------ cases


def test_this_machine(doctor, case, options):
    report = doctor.baseline(case)
    listing = json.loads(doctor.run("list", "--json").stdout.decode("utf-8"))
    case.check(report["devices"] == listing["devices"], "doctor's devices differ from list --json")
    case.check(report["physical"] == listing["physical"],
               "doctor's physical devices differ from list --json")
    selectors = {d["selector"] for d in report["devices"]}
    case.check("cpu:0" in selectors, "the built-in CPU device is missing")
    # The PCI list is what /sys shows: every class 0x03xxxx device.
    expected = []
    root = "/sys/bus/pci/devices"
    for address in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        try:
            with open(os.path.join(root, address, "class")) as handle:
                if int(handle.read(), 16) >> 16 == 0x03:
                    expected.append(address)
        except OSError:
            pass
    case.check([p["address"] for p in report["pci"]] == expected,
               f"pci is {[p['address'] for p in report['pci']]}, /sys has {expected}")
    if not expected:
        require_finding(case, report, "pci.no_gpu", "info", "No GPU on the PCI bus")
    vendors = {p["vendor_id"] for p in report["pci"]}
    for name, vendor, check in (("cuda", 0x10de, "cuda.no_driver"), ("hip", 0x1002, "hip.no_driver")):
        entry = backend(report, name)
        if entry["available"] or host_has_loadable(report, name):
            continue
        if vendor in vendors:
            require_finding(case, report, "pci.gpu_not_exposed", "error", "was not found")
        else:
            require_finding(case, report, check, "info", "unavailable", "not found", "dlopen(")
    # Every backend's attempts are the library's, with their dlerror().
    for entry in report["backends"]:
        if not entry["available"] and entry["name"] != "cpu":
            case.check(entry["attempts"], f"{entry['name']}: unavailable but no attempts listed")
    for name, label in (("opencl", "OpenCL"), ("vulkan", "Vulkan")):
        for device in (d for d in report["devices"] if d["backend"] == name):
            require_finding(case, report, f"{name}.backend", "ok", f"{label} backend has",
                            f"{device['selector']}: {device['name']}")
    # ROCm's runtime without an AMD GPU (installed here for hiprtc): the cause
    # is the missing GPU and kernel driver, not the library.
    hip = backend(report, "hip")
    if (not hip["available"] and hip["probe"]["loaded"] and 0x1002 not in vendors
            and not os.path.exists("/dev/kfd")):
        finding = require_finding(case, report, "hip.no_gpu", "info", "HIP runtime",
                                  "is installed", "no AMD GPU", "/dev/kfd is absent", "ENOENT",
                                  "Nothing to do")
        # The doctor and the backend agree on the cause, and the evidence says both.
        for words in ("hipGetDeviceCount = 100 hipErrorNoDevice", "anygpu's HIP backend: ",
                      hip["reason"]):
            case.check(words in finding["evidence"], f"hip.no_gpu evidence lacks {words!r}")
        case.check(not findings(report, "hip.init_failed"),
                   "hip.init_failed reported although the cause is the missing GPU")
    require_finding(case, report, "selection.default", "info", "The default device is",
                    report["default_device"] or "?")
    # The CPU devices (built-in, PoCL, lavapipe) are one physical CPU.
    cpu_devices = {d["selector"] for d in report["devices"] if d["type"] == "cpu"}
    cpu_groups = [p for p in report["physical"] if p["match"] == "cpu"]
    case.require(len(cpu_groups) == 1, f"{len(cpu_groups)} physical CPUs")
    case.check(set(cpu_groups[0]["devices"]) == cpu_devices,
               f"the physical CPU has {cpu_groups[0]['devices']}, CPU devices are {cpu_devices}")


def test_text_matches_json(doctor, case, options):
    report = doctor.baseline(case)
    out = doctor.text(case)
    for section in ("Backends:", "Physical devices:", "PCI display and 3D controllers:",
                    "Findings:", "Summary:"):
        case.check(f"\n{section}" in out or out.startswith(section), f"text lacks '{section}'")
    for finding in report["findings"]:
        case.check(finding["what"] in out, f"text lacks the finding {finding['what']!r}")
    summary = report["summary"]
    case.check(f"{summary['error']} error" in out and f"{summary['ok']} ok" in out,
               "text summary differs from the JSON's")
    for group in report["physical"]:
        case.check(group["id"] in out, f"text lacks {group['id']}")


def test_ocl_icd_vendors_empty_directory(doctor, case, options):
    with tempfile.TemporaryDirectory() as empty:
        report = doctor.json(case, env={"OCL_ICD_VENDORS": empty})
        finding = require_finding(case, report, "opencl.no_icd", "error", empty, "no .icd file",
                                  "-1001")
        case.check("unset it" in finding["fix"], f"fix does not say to unset: {finding['fix']!r}")
        entry = backend(report, "opencl")
        case.check(entry["device_count"] == 0, "OpenCL still has devices with no ICD")
        case.check(entry["probe"]["init_result"] == -1001,
                   f"clGetPlatformIDs gave {entry['probe']['init_result']}, expected -1001")
        case.check(entry["environment"]["OCL_ICD_VENDORS"] == empty, "environment not reported")
        # The CPU device is still there: the doctor ran and picked a default.
        case.check(report["default_device"] == "cpu:0",
                   f"default is {report['default_device']!r} with no OpenCL platform")


def test_ocl_icd_naming_missing_library(doctor, case, options):
    with tempfile.TemporaryDirectory() as vendors:
        icd = os.path.join(vendors, "missing.icd")
        write(icd, "/nonexistent/libmissing-opencl.so\n")
        report = doctor.json(case, env={"OCL_ICD_VENDORS": vendors})
        finding = require_finding(case, report, "opencl.icd_library", "error", icd,
                                  "/nonexistent/libmissing-opencl.so", "does not load")
        case.check("cannot open shared object file" in finding["evidence"],
                   f"evidence lacks dlerror(): {finding['evidence']!r}")
        case.check("remove" in finding["fix"], f"fix: {finding['fix']!r}")
        # OCL_ICD_VENDORS may also name the .icd file itself.
        report = doctor.json(case, env={"OCL_ICD_VENDORS": icd})
        require_finding(case, report, "opencl.icd_library", "error", icd, "does not load")


def test_ocl_icd_unreadable(doctor, case, options):
    with tempfile.TemporaryDirectory() as vendors:
        # A directory named .icd cannot be read even by root (EISDIR); a file
        # with mode 000 cannot be read by anyone else (EACCES).
        os.mkdir(os.path.join(vendors, "directory.icd"))
        locked = os.path.join(vendors, "locked.icd")
        write(locked, "libpocl.so.2\n", mode=0)
        report = doctor.json(case, env={"OCL_ICD_VENDORS": vendors})
        finding = require_finding(case, report, "opencl.icd_unreadable", "error",
                                  "directory.icd", "EISDIR")
        case.check("chmod" in finding["fix"] or "remove" in finding["fix"],
                   f"fix: {finding['fix']!r}")
        if os.geteuid() != 0:
            require_finding(case, report, "opencl.icd_unreadable", "error", locked, "EACCES")
        os.chmod(locked, 0o600)


def check_vulkan_without_driver(doctor, case, report, env):
    """With VK_DRIVER_FILES naming no usable driver, the Vulkan backend has no
    device, doctor says so pointing at the variable, and list agrees."""
    entry = backend(report, "vulkan")
    case.check(entry["device_count"] == 0 and not entry["available"],
               f"vulkan backend: {entry['device_count']} devices, available {entry['available']}")
    case.check(not any(d["backend"] == "vulkan" for d in report["devices"]),
               "Vulkan devices listed although VK_DRIVER_FILES names no usable driver")
    if entry["probe"]["loaded"]:
        require_finding(case, report, "vulkan.backend", "warning", "Vulkan backend is unavailable",
                        "VK_DRIVER_FILES")
    listing = json.loads(doctor.run("list", "--json", env=env).stdout.decode("utf-8"))
    case.check(not any(d["backend"] == "vulkan" for d in listing["devices"]),
               "list --json shows Vulkan devices although VK_DRIVER_FILES names no usable driver")
    case.check(any(d["selector"] == "cpu:0" for d in listing["devices"]),
               "list --json lost cpu:0 with a broken VK_DRIVER_FILES")
    listed = next(b for b in listing["backends"] if b["name"] == "vulkan")
    case.check(not listed["available"] and listed["reason"],
               f"list --json: vulkan backend {listed} should be unavailable with a reason")


def test_vk_driver_files_garbage_manifest(doctor, case, options):
    """A manifest that is not JSON: the loader fails vkCreateInstance with an
    unrelated code (VK_ERROR_OUT_OF_HOST_MEMORY from Debian's), so the
    backend's reason names the variable and the file (issue 33, item 12)."""
    with tempfile.TemporaryDirectory() as directory:
        garbage = os.path.join(directory, "garbage_icd.json")
        with open(garbage, "w") as f:
            f.write("this is { not json\n")
        env = {"VK_DRIVER_FILES": garbage}
        listing = json.loads(doctor.run("list", "--json", env=env).stdout.decode("utf-8"))
        listed = next(b for b in listing["backends"] if b["name"] == "vulkan")
        if listed["available"]:
            case.check(False, "vulkan available with a garbage manifest as its only driver")
            return
        reason = listed["reason"]
        if "vkCreateInstance failed" in reason and "INCOMPATIBLE_DRIVER" not in reason:
            case.check(f"VK_DRIVER_FILES={garbage}" in reason,
                       f"the reason does not name VK_DRIVER_FILES and the file: {reason!r}")


def test_vk_driver_files_missing_manifest(doctor, case, options):
    with tempfile.TemporaryDirectory() as directory:
        missing = os.path.join(directory, "nowhere_icd.json")
        report = doctor.json(case, env={"VK_DRIVER_FILES": missing})
        finding = require_finding(case, report, "vulkan.manifest_missing", "error",
                                  "VK_DRIVER_FILES", missing, "ENOENT")
        case.check("unset" in finding["fix"], f"fix: {finding['fix']!r}")
        # The system's manifests are not read when VK_DRIVER_FILES is set.
        case.check(not any("/usr/share/vulkan/icd.d/" in f["what"] for f in report["findings"]),
                   "the system's manifests were read although VK_DRIVER_FILES replaces them")
        check_vulkan_without_driver(doctor, case, report, {"VK_DRIVER_FILES": missing})


def test_vk_driver_files_bad_library_path(doctor, case, options):
    with tempfile.TemporaryDirectory() as directory:
        manifest = os.path.join(directory, "bad_icd.json")
        write(manifest, json.dumps({"file_format_version": "1.0.0",
                                    "ICD": {"api_version": "1.3.0",
                                            "library_path": "/nonexistent/libvulkan_bad.so"}}))
        report = doctor.json(case, env={"VK_DRIVER_FILES": manifest})
        finding = require_finding(case, report, "vulkan.driver_library", "error", manifest,
                                  "/nonexistent/libvulkan_bad.so", "does not load")
        case.check("cannot open shared object file" in finding["evidence"],
                   f"evidence lacks dlerror(): {finding['evidence']!r}")
        check_vulkan_without_driver(doctor, case, report, {"VK_DRIVER_FILES": manifest})
        # A manifest without ICD.library_path is not a driver manifest.
        write(manifest, '{"file_format_version": "1.0.0", "ICD": {"api_version": "1.3.0"}}')
        report = doctor.json(case, env={"VK_DRIVER_FILES": manifest})
        require_finding(case, report, "vulkan.manifest_invalid", "error", manifest, "library_path")


def test_cuda_stub_first_on_library_path(doctor, case, options):
    stubs = cuda_stubs_directory()
    if not stubs:
        raise CaseSkipped("no stubs/libcuda.so under $CUDA_HOME or /usr/local/cuda* "
                          "(the CUDA toolkit is not installed)")
    report = doctor.json(case, env={"LD_LIBRARY_PATH": stubs})
    finding = require_finding(case, report, "cuda.stub_library", "error", "build-time stub",
                              "stub was found at run time")
    case.check("34 CUDA_ERROR_STUB_LIBRARY" in finding["evidence"],
               f"evidence lacks cuInit's result: {finding['evidence']!r}")
    case.check(f"Remove {stubs} from LD_LIBRARY_PATH" in finding["fix"],
               f"fix does not name the entry: {finding['fix']!r}")
    probe = backend(report, "cuda")["probe"]
    case.check(probe["loaded"] and probe["init_result"] == 34,
               f"cuda probe: {probe}")
    case.check(probe["init_result_name"] == "CUDA_ERROR_STUB_LIBRARY", f"cuda probe: {probe}")


def test_cuda_visible_devices(doctor, case, options):
    report = doctor.json(case, env={"CUDA_VISIBLE_DEVICES": ""})
    finding = require_finding(case, report, "cuda.visible_devices", "warning",
                              "CUDA_VISIBLE_DEVICES is set but empty", "hides every CUDA device")
    case.check("unset CUDA_VISIBLE_DEVICES" in finding["fix"], f"fix: {finding['fix']!r}")
    case.check(backend(report, "cuda")["environment"]["CUDA_VISIBLE_DEVICES"] == "",
               "the empty variable is not reported")
    report = doctor.json(case, env={"CUDA_VISIBLE_DEVICES": "0,bogus,1"})
    require_finding(case, report, "cuda.visible_devices", "warning", "entry 2, 'bogus'",
                    "every entry after it", "leaving 1 device visible")
    report = doctor.json(case, env={"CUDA_VISIBLE_DEVICES": "0,GPU-8f3c2a"})
    require_finding(case, report, "cuda.visible_devices", "info", "limits CUDA to 2 devices")


def test_anygpu_device_matching_nothing(doctor, case, options):
    report = doctor.json(case, env={"ANYGPU_DEVICE": "cpu:7"})
    require_finding(case, report, "selection.anygpu_device", "error", "ANYGPU_DEVICE=cpu:7",
                    "no device matches", "cpu has 1")
    report = doctor.json(case, env={"ANYGPU_DEVICE": "phys:0"})
    require_finding(case, report, "selection.anygpu_device", "info", "ANYGPU_DEVICE=phys:0 selects")


def test_sysroot_nvidia_without_driver(doctor, case, options):
    if host_has_loadable(doctor.baseline(case), "cuda"):
        raise CaseSkipped("this machine has a libcuda: the 'no driver' stage cannot hold here")
    with tempfile.TemporaryDirectory() as root:
        stage_pci_gpu(root, "0000:01:00.0", 0x10de, 0x2684)
        report = doctor.json(case, "--sysroot", root)
        finding = require_finding(
            case, report, "pci.gpu_not_exposed", "error",
            "NVIDIA GPU at 0000:01:00.0, but libcuda.so.1 was not found: the NVIDIA driver is not "
            "installed")
        case.check("vendor 0x10de" in finding["evidence"] and "libcuda.so.1" in finding["evidence"],
                   f"evidence: {finding['evidence']!r}")
        case.check("Install the NVIDIA driver" in finding["fix"], f"fix: {finding['fix']!r}")
        gpus = report["pci"]
        case.require(len(gpus) == 1, f"pci: {gpus}")
        case.check(gpus[0]["address"] == "0000:01:00.0" and gpus[0]["vendor_id"] == 0x10de
                   and gpus[0]["physical"] is None and gpus[0]["kind"] == "discrete",
                   f"pci entry: {gpus[0]}")
        case.check(not findings(report, "cuda.no_driver"),
                   "cuda.no_driver claims no NVIDIA GPU is on the bus")
        text = doctor.text(case, "--sysroot", root)
        case.check("NVIDIA GPU at 0000:01:00.0, but libcuda.so.1 was not found" in text,
                   "text lacks the finding")
        # Bound to nouveau, the fix says nouveau has no CUDA.
        os.symlink("../../../bus/pci/drivers/nouveau",
                   os.path.join(root, "sys/bus/pci/devices/0000:01:00.0/driver"))
        report = doctor.json(case, "--sysroot", root)
        require_finding(case, report, "pci.gpu_not_exposed", "error", "driver nouveau",
                        "nouveau, the open-source driver")


def unused_gid():
    mine = set(os.getgroups()) | {os.getegid(), os.getgid()}
    return next(gid for gid in range(4242, 65000) if gid not in mine)


def test_sysroot_kfd_group(doctor, case, options):
    if os.geteuid() != 0:
        raise CaseSkipped("staging /dev/kfd in another group needs root (chown)")
    gid = unused_gid()
    with tempfile.TemporaryDirectory() as root:
        kfd = os.path.join(root, "dev/kfd")
        write(kfd, "", mode=0o660)
        os.chown(kfd, 0, gid)
        write(os.path.join(root, "etc/group"), f"root:x:0:\nrender:x:{gid}:\n")
        report = doctor.json(case, "--sysroot", root)
        finding = require_finding(case, report, "amd.kfd", "warning", "/dev/kfd",
                                  "owned by group render", "not in that group")
        case.check("usermod -aG render" in finding["fix"], f"fix: {finding['fix']!r}")
        case.check(f"gid {gid} (render)" in finding["evidence"],
                   f"evidence: {finding['evidence']!r}")
        # Listed in /etc/group but not in this session: log in again.
        user = subprocess.run(["id", "-un"], stdout=subprocess.PIPE).stdout.decode().strip()
        write(os.path.join(root, "etc/group"), f"root:x:0:\nrender:x:{gid}:{user}\n")
        report = doctor.json(case, "--sysroot", root)
        require_finding(case, report, "amd.kfd", "warning", "already lists you in group render",
                        "log out and back in")
        # In the group, it is fine.
        os.chown(kfd, 0, os.getegid())
        report = doctor.json(case, "--sysroot", root)
        require_finding(case, report, "amd.kfd", "ok", "/dev/kfd opens read-write")


def test_sysroot_hybrid(doctor, case, options):
    with tempfile.TemporaryDirectory() as root:
        stage_pci_gpu(root, "0000:00:02.0", 0x8086, 0x9a49, driver="i915")
        stage_pci_gpu(root, "0000:01:00.0", 0x10de, 0x25a2)
        report = doctor.json(case, "--sysroot", root)
        finding = require_finding(case, report, "selection.hybrid", "info",
                                  "integrated Intel GPU at 0000:00:02.0",
                                  "discrete NVIDIA GPU at 0000:01:00.0",
                                  "default is the discrete GPU")
        case.check("ANYGPU_DEVICE=pci:0000:00:02.0" in finding["fix"]
                   and "*:integrated" in finding["fix"],
                   f"fix does not say how to pick the integrated GPU: {finding['fix']!r}")
        case.check("DRI_PRIME=1" in finding["fix"] and "__NV_PRIME_RENDER_OFFLOAD=1"
                   in finding["fix"], f"fix lacks the PRIME variables: {finding['fix']!r}")
        case.check(f"agpu_device_select(NULL) -> {report['default_device']}" in finding["evidence"],
                   f"evidence lacks the current default: {finding['evidence']!r}")
        kinds = {p["address"]: (p["kind"], p["driver"]) for p in report["pci"]}
        case.check(kinds == {"0000:00:02.0": ("integrated", "i915"),
                             "0000:01:00.0": ("discrete", None)}, f"pci: {kinds}")
        require_finding(case, report, "pci.gpu_not_exposed", "error", "Intel GPU at 0000:00:02.0",
                        "intel-opencl-icd")


def test_sysroot_driver_version_mismatch(doctor, case, options):
    if not options.test_library:
        raise CaseSkipped("no --test-library given")
    if host_has_loadable(doctor.baseline(case), "cuda"):
        raise CaseSkipped("this machine has a libcuda, which would be found first")
    with tempfile.TemporaryDirectory() as root:
        stage_pci_gpu(root, "0000:01:00.0", 0x10de, 0x2684, driver="nvidia")
        write(os.path.join(root, "proc/driver/nvidia/version"),
              "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 "
              "UTC 2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n")
        libraries = os.path.join(root, "lib")
        os.makedirs(libraries)
        shutil.copy(options.test_library, os.path.join(libraries, "libcuda.so.535.104.05"))
        os.symlink("libcuda.so.535.104.05", os.path.join(libraries, "libcuda.so.1"))
        report = doctor.json(case, "--sysroot", root, env={"LD_LIBRARY_PATH": libraries})
        finding = require_finding(case, report, "nvidia.version_mismatch", "error",
                                  "kernel module is version 550.54.14", "libcuda is 535.104.05",
                                  "803", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")
        case.check("Reboot" in finding["fix"], f"fix: {finding['fix']!r}")
        case.check("/proc/driver/nvidia/version" in finding["evidence"],
                   f"evidence: {finding['evidence']!r}")
        probe = backend(report, "cuda")["probe"]
        case.check(probe["version"] == "535.104.05", f"cuda probe version: {probe['version']!r}")
        # The staged machine has no device nodes: they are reported missing.
        require_finding(case, report, "nvidia.device_nodes", "error", "/dev/nvidiactl is missing")
        require_finding(case, report, "nvidia.device_nodes", "error", "/dev/nvidia-uvm is missing",
                        "999")
        # Matching versions are fine.
        write(os.path.join(root, "proc/driver/nvidia/version"),
              "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build\n")
        report = doctor.json(case, "--sysroot", root, env={"LD_LIBRARY_PATH": libraries})
        case.check(not findings(report, "nvidia.version_mismatch"), "a mismatch with equal versions")
        require_finding(case, report, "nvidia.kernel_module", "ok", "535.104.05",
                        "matches libcuda")


def test_sysroot_empty_and_bad(doctor, case, options):
    with tempfile.TemporaryDirectory() as root:
        report = doctor.json(case, "--sysroot", root)
        require_finding(case, report, "pci.unreadable", "warning", "Cannot read the PCI bus")
        case.check(report["sysroot"] == root, f"sysroot reported as {report['sysroot']!r}")
        report = doctor.json(case, f"--sysroot={root}/")
        case.check(report["sysroot"] == root, "a trailing / is not normalised")
        missing = os.path.join(root, "nowhere")
        result = doctor.run("doctor", "--sysroot", missing)
        err = result.stderr.decode("utf-8", "replace")
        case.check(result.returncode == 1, f"a missing sysroot exited {result.returncode}")
        case.check(err.startswith("anygpu: cannot run the doctor") and err.count("\n") == 1,
                   f"stderr: {err!r}")
        case.check(result.stdout == b"", "a missing sysroot wrote to stdout")


def test_usage_and_write_errors(doctor, case, options):
    for args, expected in ((["doctor", "--bogus"], "unknown option '--bogus'"),
                           (["doctor", "extra"], "unexpected argument 'extra'"),
                           (["doctor", "--sysroot"], "missing directory after '--sysroot'")):
        result = doctor.run(*args)
        err = result.stderr.decode("utf-8", "replace")
        case.check(result.returncode == 2, f"anygpu {' '.join(args)} exited {result.returncode}")
        case.check(expected in err, f"anygpu {' '.join(args)}: stderr {err!r}")
    result = doctor.run("doctor", "--help")
    case.check(result.returncode == 0 and b"doctor" in result.stdout, "doctor --help")
    if os.path.exists("/dev/full"):
        for args in (["doctor"], ["doctor", "--json"]):
            with open("/dev/full", "w") as full:
                result = doctor.run(*args, stdout=full)
            case.check(result.returncode == 1,
                       f"anygpu {' '.join(args)} > /dev/full exited {result.returncode}")


CASES = [
    test_this_machine,
    test_text_matches_json,
    test_ocl_icd_vendors_empty_directory,
    test_ocl_icd_naming_missing_library,
    test_ocl_icd_unreadable,
    test_vk_driver_files_garbage_manifest,
    test_vk_driver_files_missing_manifest,
    test_vk_driver_files_bad_library_path,
    test_cuda_stub_first_on_library_path,
    test_cuda_visible_devices,
    test_anygpu_device_matching_nothing,
    test_sysroot_nvidia_without_driver,
    test_sysroot_kfd_group,
    test_sysroot_hybrid,
    test_sysroot_driver_version_mismatch,
    test_sysroot_empty_and_bad,
    test_usage_and_write_errors,
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", help="the built anygpu executable")
    parser.add_argument("--test-library", help="a plain shared library to stage as libcuda")
    options = parser.parse_args()
    doctor = Doctor(os.path.abspath(options.binary), options.test_library)
    return run_cases(CASES, doctor, options,
                     errors=(OSError, subprocess.TimeoutExpired, StopIteration))


if __name__ == "__main__":
    sys.exit(main())
