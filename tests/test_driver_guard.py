#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""anygpu list, info and doctor survive a driver that crashes the process as
it loads (issue 33, item 10; tools/driver_guard.c): an OpenCL ICD that
segfaults in clIcdGetPlatformIDsKHR and a Vulkan driver whose constructor
segfaults, each beside the machine's real drivers. Each command exits 0,
still lists the real devices, and names the crashing file and the signal;
the doctor reports both as findings. Without the guard
(ANYGPU_DRIVER_GUARD=0) `anygpu list` dies, so this test can fail.

usage: test_driver_guard.py ANYGPU CRASH_ICD_LIBRARY CRASH_VULKAN_LIBRARY"""
import glob
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("  FAIL " + what)


def run(binary, env, *args):
    return subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=300)


def main():
    binary, crash_icd, crash_vulkan = sys.argv[1:4]
    real_icds = sorted(glob.glob("/etc/OpenCL/vendors/*.icd"))
    real_manifests = sorted(glob.glob("/usr/share/vulkan/icd.d/lvp_icd*.json"))
    with tempfile.TemporaryDirectory() as root:
        vendors = os.path.join(root, "vendors")
        os.mkdir(vendors)
        bad_icd = os.path.join(vendors, "00-crash.icd")
        with open(bad_icd, "w") as f:
            f.write(crash_icd + "\n")
        for icd in real_icds:
            os.symlink(icd, os.path.join(vendors, os.path.basename(icd)))
        bad_manifest = os.path.join(root, "crash_icd.json")
        with open(bad_manifest, "w") as f:
            json.dump({"file_format_version": "1.0.0",
                       "ICD": {"library_path": crash_vulkan, "api_version": "1.3.0"}}, f)
        env = dict(os.environ)
        env["OCL_ICD_VENDORS"] = vendors
        env["VK_DRIVER_FILES"] = ":".join([bad_manifest] + real_manifests)
        env.pop("VK_ICD_FILENAMES", None)

        unguarded = run(binary, dict(env, ANYGPU_DRIVER_GUARD="0"), "list")
        print("without the guard: anygpu list ended with %d" % unguarded.returncode)
        check(unguarded.returncode != 0, "the crashing drivers did not crash an unguarded list")

        listed = run(binary, env, "list")
        print("anygpu list: exit %d\n%s%s" % (listed.returncode, listed.stdout, listed.stderr))
        check(listed.returncode == 0, "anygpu list exited %d" % listed.returncode)
        check("cpu:0" in listed.stdout, "anygpu list lost cpu:0")
        if real_icds:
            check("opencl:0" in listed.stdout, "anygpu list lost the real OpenCL device")
        if real_manifests:
            check("vulkan:0" in listed.stdout, "anygpu list lost the real Vulkan device")
        for path in (bad_icd, bad_manifest):
            # SIGSEGV; under ASan with abort_on_error, SIGABRT from its handler
            check(path in listed.stderr and ("(signal " in listed.stderr or "exit status" in
                                             listed.stderr),
                  "anygpu list did not name %s and the signal" % path)

        as_json = run(binary, env, "list", "--json")
        check(as_json.returncode == 0, "anygpu list --json exited %d" % as_json.returncode)
        try:
            devices = json.loads(as_json.stdout)
            check(bool(devices), "anygpu list --json printed nothing")
        except ValueError:
            check(False, "anygpu list --json is not JSON: %r" % as_json.stdout[:200])

        info = run(binary, env, "info", "cpu:0")
        check(info.returncode == 0 and "cpu" in info.stdout, "anygpu info cpu:0 failed")

        doctor = run(binary, env, "doctor", "--json")
        print("anygpu doctor --json: exit %d" % doctor.returncode)
        try:
            report = json.loads(doctor.stdout)
        except ValueError:
            report = None
            check(False, "anygpu doctor --json is not JSON: %r" % doctor.stdout[:300])
        if report is not None:
            text = json.dumps(report)
            check("opencl.icd_crash" in text and bad_icd in text,
                  "the doctor has no opencl.icd_crash finding naming %s" % bad_icd)
            check("vulkan.driver_crash" in text and bad_manifest in text,
                  "the doctor has no vulkan.driver_crash finding naming %s" % bad_manifest)
            check(vendors in text, "the doctor reports a different OCL_ICD_VENDORS than was set")
        doctor_text = run(binary, env, "doctor")
        check("crashes any process that loads it" in doctor_text.stdout,
              "the doctor's text has no crash finding")
    print("%d passed, %d failed, 0 skipped" % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
