#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""anygpu top end to end (issue 32): this machine's CPU with memory and
utilisation in two JSON samples; every value of each replayed machine under
tests/telemetry/ through --sysroot, its processes and its missing sources
with their reasons; plain text without a terminal; usage errors; and the
cost of `anygpu top --count 1` (median of 10 runs, printed); and
`anygpu doctor --watch` on a replayed amdgpu machine, idle and busy; with
FAKE_NVML_DIR, the NVIDIA row through the stand-in libnvidia-ml.so.1.

usage: test_top.py ANYGPU FIXTURES [FAKE_NVML_DIR]"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("  FAIL " + what)


def top(binary, *args):
    return subprocess.run([binary, "top", *args], capture_output=True, text=True, timeout=120)


def samples(binary, *args):
    done = top(binary, "--json", *args)
    check(done.returncode == 0, f"top {args} exit {done.returncode}: {done.stderr}")
    return [json.loads(line) for line in done.stdout.splitlines()]


def missing(device, source):
    return [m["reason"] for m in device["missing"] if m["source"] == source]


def check_live(binary):
    both = samples(binary, "--count", "2", "--interval", "0.2")
    check(len(both) == 2, f"--count 2 gave {len(both)} documents")
    for doc in both:
        cpu = doc["devices"][0]
        check(cpu["type"] == "cpu" and cpu["memory_total_bytes"] > 0, f"CPU device: {cpu}")
        check(cpu["utilization_percent"] is not None, "CPU utilisation unknown")
    check(abs(both[1]["window_s"] - 0.2) < 0.15, f"second window {both[1]['window_s']}")
    nvml = [s for s in both[0]["sources"] if s["name"] == "nvml"]
    check(len(nvml) == 1, "no nvml source")
    if nvml and not nvml[0]["available"]:
        check(nvml[0]["reason"].startswith("NVML"), f"nvml reason: {nvml[0]['reason']}")
    text = top(binary, "--count", "1")
    check(text.returncode == 0 and "\033" not in text.stdout, "escape codes without a terminal")
    check("MEMORY USED / TOTAL" in text.stdout, "no table header")


def check_amdgpu(doc):
    gpu = doc["devices"][1]
    expected = {"driver": "amdgpu", "pci": "0000:03:00.0", "name": "AMD Radeon RX 6800 XT",
                "type": "discrete", "utilization_percent": 37,
                "memory_total_bytes": 17163091968, "memory_used_bytes": 2147483648,
                "memory_free_bytes": 17163091968 - 2147483648,
                "shared_total_bytes": 8589934592, "shared_used_bytes": 33554432,
                "temperature_c": 52, "temperature_sensor": "amdgpu edge", "power_w": 123,
                "power_limit_w": 255, "clock_mhz": 1850, "clock_max_mhz": 2250,
                "memory_clock_mhz": 1000, "memory_clock_max_mhz": 1000, "fan_percent": 40,
                "throttle_reasons": None}
    for key, value in expected.items():
        check(gpu.get(key) == value, f"amdgpu {key}: {gpu.get(key)!r}, expected {value!r}")
    # engine time stands still in a replay: 0% over the first window
    check(gpu["processes"] == [{"pid": 300, "name": "python3", "memory_bytes": 1 << 30,
                                "shared_memory_bytes": 2 << 20, "engine_percent": 0}],
          f"amdgpu processes: {gpu['processes']}")


def check_fixtures(binary, fixtures):
    docs = {}
    for name in ("cpu-only", "amdgpu", "xe", "nvidia"):
        got = samples(binary, "--sysroot", f"{fixtures}/{name}", "--count", "1")
        check(len(got) == 1, f"{name}: {len(got)} documents")
        docs[name] = got[0] if got else {"devices": [{}, {}], "sources": []}
        cpu = docs[name]["devices"][0]
        check(cpu.get("memory_total_bytes") == 16384000 * 1024, f"{name}: CPU memory {cpu}")
        check(cpu.get("name") == "AMD Ryzen 7 7700X 8-Core Processor", f"{name}: CPU name")
        nvml = [s["reason"] for s in docs[name]["sources"] if s["name"] == "nvml"]
        check(nvml and "NVML not read" in nvml[0], f"{name}: nvml reason {nvml}")
    cpu = docs["cpu-only"]["devices"][0]
    check(cpu["temperature_c"] == 61.25 and cpu["temperature_sensor"] == "k10temp Tctl",
          f"cpu-only temperature {cpu['temperature_c']} {cpu['temperature_sensor']}")
    check(cpu["clock_max_mhz"] == 5573, "cpu-only clock_max_mhz")
    check([p["pid"] for p in cpu["processes"]] == [100, 200], "cpu-only processes")
    check_amdgpu(docs["amdgpu"])
    xe = docs["xe"]["devices"][1]
    check(xe["driver"] == "xe" and xe["temperature_c"] == 47 and xe["power_limit_w"] == 190,
          f"xe: {xe}")
    check(xe["memory_total_bytes"] is None and xe["utilization_percent"] is None, "xe unknowns")
    check([(p["pid"], p["name"], p["memory_bytes"]) for p in xe["processes"]] ==
          [(400, "blender", 512 << 20), (500, "ollama", 256 << 20)], f"xe: {xe['processes']}")
    nvidia = docs["nvidia"]["devices"][1]
    check(nvidia["driver"] == "nvidia" and nvidia["processes"] is None, f"nvidia: {nvidia}")
    check(missing(nvidia, "nvml") and missing(nvidia, "hwmon"), f"nvidia missing: {nvidia}")


def check_watch(binary, fixtures):
    """doctor --watch on a copy of the amdgpu machine: at 3% busy the process
    holding 1 GiB is named with the hints; at 37% nothing is."""
    with tempfile.TemporaryDirectory() as scratch:
        root = os.path.join(scratch, "amdgpu")
        shutil.copytree(os.path.join(fixtures, "amdgpu"), root)
        busy = os.path.join(root, "sys/class/drm/card1/device/gpu_busy_percent")
        with open(busy, "w") as out:
            out.write("3\n")
        idle = subprocess.run([binary, "doctor", "--watch", "0.2", "--sysroot", root],
                              capture_output=True, text=True, timeout=60)
        check(idle.returncode == 0 and "[mostly idle] device 1 (AMD Radeon RX 6800 XT" in idle.stdout
              and "pid 300 (python3) held 1.0 GiB" in idle.stdout
              and "batches too small" in idle.stdout, f"doctor --watch idle: {idle.stdout}")
        doc = json.loads(subprocess.run([binary, "doctor", "--watch", "0.2", "--json", "--sysroot",
                                         root], capture_output=True, text=True,
                                        timeout=60).stdout)
        check(doc["devices"][0]["mostly_idle_while_held"] and
              doc["devices"][0]["average_utilization_percent"] == 3, f"watch json: {doc}")
    busy = subprocess.run([binary, "doctor", "--watch", "0.2", "--sysroot",
                           os.path.join(fixtures, "amdgpu")], capture_output=True, text=True,
                          timeout=60)
    check("37% busy on average" in busy.stdout and "[mostly idle]" not in busy.stdout,
          f"doctor --watch busy: {busy.stdout}")
    done = subprocess.run([binary, "doctor", "--watch", "0"], capture_output=True, text=True,
                          timeout=60)
    check(done.returncode == 2, "doctor --watch 0 is a usage error")


def check_nvml(binary, fake_nvml):
    """The NVIDIA row through the stand-in NVML: values, throttling, MIG."""
    env = dict(os.environ, LD_LIBRARY_PATH=fake_nvml)
    done = subprocess.run([binary, "top", "--count", "1", "--json"], env=env,
                          capture_output=True, text=True, timeout=60)
    gpus = [d for d in json.loads(done.stdout)["devices"] if d["driver"] == "nvidia"]
    check(len(gpus) == 1, f"nvml: {done.stdout[:300]}")
    if gpus:
        gpu = gpus[0]
        check(gpu["memory_used_bytes"] == 10 << 30 and gpu["power_w"] == 250.5 and
              gpu["throttle_reasons"] == "software power cap, hardware thermal" and
              gpu["fan_percent"] is None, f"nvml values: {gpu}")
        check([(p["instance_id"], p["memory_used_bytes"]) for p in gpu["partitions"]] ==
              [(7, 4 << 30), (9, 1 << 30)], f"nvml partitions: {gpu['partitions']}")
    text = subprocess.run([binary, "top", "--count", "1"], env=env, capture_output=True,
                          text=True, timeout=60).stdout
    check("Device 1 is throttled: software power cap, hardware thermal" in text and
          "Device 1 partition 7 (NVIDIA H200 MIG 1g.18gb): 4.0 GiB / 18.0 GiB" in text,
          f"nvml text: {text}")


def check_usage(binary):
    done = top(binary, "--sysroot", "/nonexistent/anygpu", "--count", "1")
    check(done.returncode == 1 and "No such file" in done.stderr, f"missing sysroot: {done.stderr}")
    for args in (["--count", "x"], ["--interval", "-1"], ["--bogus"], ["--count"]):
        done = top(binary, *args)
        check(done.returncode == 2 and "anygpu:" in done.stderr, f"top {args}: {done.returncode}")
    check(top(binary, "--help").returncode == 0, "top --help")


def measure(binary):
    times = []
    for _ in range(10):
        start = time.perf_counter()
        subprocess.run([binary, "top", "--count", "1"], capture_output=True, timeout=60)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(f"anygpu top --count 1: median {median * 1000:.1f} ms of 10 runs "
          f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})")
    # The target is 50 ms; a loaded shared machine gets a generous bound.
    check(median < 1.0, f"anygpu top --count 1 took {median:.3f} s")


def main():
    binary, fixtures = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3:
        check_nvml(binary, sys.argv[3])
    check_live(binary)
    check_fixtures(binary, fixtures)
    check_usage(binary)
    check_watch(binary, fixtures)
    measure(binary)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
