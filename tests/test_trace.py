#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The timeline trace of anygpu run and bench (issue 21, docs/debugging.md),
end to end: each file is checked against the Chrome trace event format
(valid JSON, a traceEvents array, every event with name, ph, ts, pid and
tid, complete events with a duration >= 0, metadata naming every track),
with one launch event per launch and, on the backends with events (cpu,
opencl, vulkan), the device's own time of each launch.

Usage: test_trace.py ANYGPU
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import CommandFixture, main_with_fixture  # noqa: E402

COMMAND_TIMEOUT_S = 300
# Backends whose events give device timestamps.
TIMED_BACKENDS = ("cpu", "opencl", "vulkan", "cuda", "hip")

VADD = """__kernel void vadd(__global const float *a, __global const float *b,
                   __global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
"""
VADD_ARGS = ("--kernel", "vadd", "--global", "1024", "--local", "64", "--arg",
             "buf:float:1024", "--arg", "buf:float:1024", "--arg", "buf:float:1024")


class Fixture(CommandFixture):
    def __init__(self, binary):
        super().__init__(binary, "anygpu-trace-",
                         drop=("ANYGPU_TRACE", "ANYGPU_TRACE_DEVICE_TIME"),
                         timeout=COMMAND_TIMEOUT_S)
        self.source = self.write("vadd.cl", VADD)

    def path(self, name):
        return os.path.join(self.work, name)


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_format(case, path):
    """The trace event format's rules; returns the events."""
    case.require(os.path.exists(path), f"no trace file {path}")
    with open(path, encoding="utf-8") as file:
        try:
            document = json.load(file)
        except ValueError as error:
            case.require(False, f"{path} is not JSON: {error}")
    case.require(isinstance(document, dict) and isinstance(document.get("traceEvents"), list),
                 "no traceEvents array")
    events = document["traceEvents"]
    for event in events:
        case.require(isinstance(event, dict), f"an event is not an object: {event!r}")
        for key, test in (("name", lambda v: isinstance(v, str)), ("ph", lambda v: isinstance(v, str)),
                          ("ts", is_number), ("pid", lambda v: isinstance(v, int)),
                          ("tid", lambda v: isinstance(v, int))):
            case.require(key in event and test(event[key]), f"event lacks a valid {key}: {event}")
        case.check(event["ph"] in ("X", "M", "i"), f"unexpected phase: {event}")
        if event["ph"] == "X":
            case.check(is_number(event.get("dur")) and event["dur"] >= 0,
                       f"complete event without a duration >= 0: {event}")
    # Every track a complete event is on is named: its process (the device)
    # and its thread (a queue's host calls or device time, or builds).
    processes = {e["pid"]: e["args"]["name"] for e in events
                 if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name"}
    for event in events:
        if event["ph"] != "X":
            continue
        case.check(event["pid"] in processes, f"no process_name for pid {event['pid']}: {event}")
        case.check((event["pid"], event["tid"]) in threads,
                   f"no thread_name for pid {event['pid']} tid {event['tid']}: {event}")
    other = document.get("otherData", {})
    case.check(other.get("unresolved_device_spans") == 0 and other.get("dropped_events") == 0,
               f"otherData: {other}")
    return events, processes, threads


def check_launches(case, events, processes, threads, kernel, per_device):
    """`per_device` launches of `kernel` on each device the trace names in
    `per_device` ({selector: count}), each with its device time where the
    backend has events. Returns the device durations in microseconds."""
    durations = {}
    for selector, count in per_device.items():
        pids = [pid for pid, name in processes.items() if name.startswith(selector + " ")]
        if not case.check(len(pids) == 1, f"{selector}: {len(pids)} processes named for it"):
            continue
        pid = pids[0]
        launches = [e for e in events if e["ph"] == "X" and e.get("cat") == "launch"
                    and e["name"] == kernel and e["pid"] == pid]
        case.check(len(launches) == count,
                   f"{selector}: {len(launches)} launch events of {kernel}, expected {count}")
        device = [e for e in events if e["ph"] == "X" and e.get("cat") == "device"
                  and e["name"] == kernel and e["pid"] == pid]
        if selector.split(":")[0] not in TIMED_BACKENDS:
            continue
        case.check(len(device) == len(launches),
                   f"{selector}: {len(device)} device spans for {len(launches)} launches")
        for launch, span in zip(launches, device):
            case.check(span["tid"] == launch["tid"] + 1,
                       f"{selector}: device span on tid {span['tid']}, launch on {launch['tid']}")
            case.check("device time" in threads.get((pid, span["tid"]), ""),
                       f"{selector}: the device track is named {threads.get((pid, span['tid']))}")
            case.check(span["dur"] > 0 and span["args"].get("device_ns", 0) > 0,
                       f"{selector}: device span without a duration: {span}")
            # never before the launch was enqueued (both on the host clock)
            case.check(span["ts"] >= launch["ts"] - 0.002,
                       f"{selector}: device span at {span['ts']} us before its launch at "
                       f"{launch['ts']} us")
        durations[selector] = [span["dur"] for span in device]
    return durations


def test_run_trace_every_device(fixture, case, options):
    """The acceptance line: anygpu run --trace on every device writes a trace
    in the trace event format with one launch event per launch and the
    device's own time of it."""
    trace = fixture.path("run.json")
    code, out, err = fixture.run("run", fixture.source, *VADD_ARGS, "--all-devices",
                                 "--trace", trace)
    case.require(code == 0, f"exit {code}: {err}\n{out}")
    case.check(f"trace written to {trace}" in err, f"stderr: {err!r}")
    ran = [line.split()[0] for line in out.splitlines() if " ran in " in line]
    case.require("cpu:0" in ran, f"cpu:0 did not run:\n{out}")
    events, processes, threads = check_format(case, trace)
    durations = check_launches(case, events, processes, threads, "vadd",
                               {selector: 1 for selector in ran})
    builds = [e for e in events if e["ph"] == "X" and e.get("cat") == "build"
              and e["name"] == fixture.source]
    case.check(len(builds) == len(ran), f"{len(builds)} builds of the source for {len(ran)} devices")
    for kind in ("write", "read", "finish"):
        case.check(any(e.get("cat") == kind for e in events), f"no {kind} event")
    print("     device time of vadd: " + ", ".join(
        f"{selector} {times[0]:.1f} us" for selector, times in durations.items()))


def test_bench_trace(fixture, case, options):
    """anygpu bench --trace: every launch of the latency benchmark, each
    with its device time, all resolved."""
    trace = fixture.path("bench.json")
    code, out, err = fixture.run("bench", "--bench", "launch", "--quick", "--no-native", "-d",
                                 "cpu:0", "--json", "--trace", trace)
    case.require(code == 0, f"exit {code}: {err}\n{out}")
    events, processes, threads = check_format(case, trace)
    launches = sum(1 for e in events if e.get("cat") == "launch" and e["name"] == "empty")
    case.check(launches >= 1050, f"{launches} launches of the empty kernel")
    check_launches(case, events, processes, threads, "empty", {"cpu:0": launches})


def test_trace_environment(fixture, case, options):
    """ANYGPU_TRACE=FILE with no --trace: written at exit."""
    trace = fixture.path("environment.json")
    env = dict(fixture.env, ANYGPU_TRACE=trace)
    code, out, err = fixture.run("run", fixture.source, *VADD_ARGS, "--device", "cpu:0", env=env)
    case.require(code == 0, f"exit {code}: {err}\n{out}")
    events, processes, threads = check_format(case, trace)
    check_launches(case, events, processes, threads, "vadd", {"cpu:0": 1})


def test_trace_host_time_only(fixture, case, options):
    """ANYGPU_TRACE_DEVICE_TIME=0: the launch on the host track, no device
    spans, the device track says why."""
    trace = fixture.path("host.json")
    env = dict(fixture.env, ANYGPU_TRACE_DEVICE_TIME="0")
    code, out, err = fixture.run("run", fixture.source, *VADD_ARGS, "--device", "cpu:0",
                                 "--trace", trace, env=env)
    case.require(code == 0, f"exit {code}: {err}\n{out}")
    events, processes, threads = check_format(case, trace)
    case.check(sum(1 for e in events if e.get("cat") == "launch" and e["name"] == "vadd") == 1,
               "not one launch")
    case.check(not any(e.get("cat") == "device" for e in events), "device spans without device time")
    case.check(any("ANYGPU_TRACE_DEVICE_TIME=0" in name for name in threads.values()),
               f"tracks: {sorted(threads.values())}")


def test_trace_refusals(fixture, case, options):
    """A file that cannot be written is refused before anything runs;
    --trace without a file is a usage error."""
    bad = os.path.join(fixture.work, "no", "such", "dir", "t.json")
    code, out, err = fixture.run("run", fixture.source, *VADD_ARGS, "--device", "cpu:0",
                                 "--trace", bad)
    case.check(code == 1 and "cannot open" in err and "ran in" not in out,
               f"exit {code}: {err!r} {out!r}")
    code, out, err = fixture.run("run", fixture.source, *VADD_ARGS, "--trace")
    case.check(code == 2 and "--trace" in err, f"exit {code}: {err!r}")
    code, out, err = fixture.run("bench", "--trace")
    case.check(code == 2 and "--trace" in err, f"exit {code}: {err!r}")


CASES = [
    test_run_trace_every_device,
    test_bench_trace,
    test_trace_environment,
    test_trace_host_time_only,
    test_trace_refusals,
]


def main():
    return main_with_fixture(CASES, __doc__.strip().splitlines()[-1], Fixture,
                             errors=(OSError, subprocess.TimeoutExpired, KeyError))


if __name__ == "__main__":
    sys.exit(main())
