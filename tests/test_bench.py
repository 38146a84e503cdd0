#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""anygpu bench, end to end: the JSON schema and the values of a --quick run
on every device (every BabelStream, reduction and sgemm result verified),
the text table, the native-baseline protocol (with programs written here in
a temporary ANYGPU_NATIVE_DIR; on vulkan:0 raw Vulkan in the same process),
the sgemm tuning cache, the HTML page
rendered by headless Chromium with its bar colours found in the screenshot
(skipped, saying so, without chromium), and the usage errors.

Usage: test_bench.py ANYGPU [--chromium PATH]"""
import json
import math
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import CaseSkipped, run_cases  # noqa: E402

KEYS = ("device", "backend", "benchmark", "value", "unit", "peak", "fraction_of_peak",
        "native", "ratio_to_native", "physical", "selector", "status", "message", "note")
STREAM = ("copy", "mul", "add", "triad", "dot")
TIMEOUT = 240


class Fixture:
    def __init__(self, anygpu, chromium):
        self.anygpu = anygpu
        self.chromium = chromium
        self.temp = tempfile.mkdtemp(prefix="anygpu-bench-test-")
        # Every run uses a cache of its own, not the user's.
        self.env = dict(os.environ, ANYGPU_CACHE_DIR=os.path.join(self.temp, "cache"),
                        ANYGPU_NATIVE_DIR=os.path.join(self.temp, "no-native"))
        self._quick = None

    def run(self, *args, env=None, timeout=TIMEOUT):
        return subprocess.run([self.anygpu, "bench", *args], capture_output=True, text=True,
                              timeout=timeout, env=env or self.env)

    def quick(self):
        """One --quick --json run on every device, shared by the cases."""
        if self._quick is None:
            done = self.run("--quick", "--json", "--sgemm-size", "128")
            self._quick = done
        return self._quick


def load(case, done):
    case.require(done.returncode == 0,
                 f"exit status {done.returncode}; stderr: {done.stderr.strip()[-2000:]}")
    try:
        return json.loads(done.stdout)
    except ValueError as error:
        case.require(False, f"not JSON ({error}): {done.stdout[:300]}")


def test_quick_json_schema_and_values(fixture, case, options):
    document = load(case, fixture.quick())
    results = document.get("results")
    case.require(isinstance(results, list) and results, "no results array")
    for result in results:
        missing = [key for key in KEYS if key not in result]
        case.check(not missing, f"{result.get('benchmark')}: missing keys {missing}")
        name = f"{result.get('benchmark')} on {result.get('selector')}"
        if result["status"] == "ok":
            case.check(isinstance(result["value"], (int, float)) and result["value"] > 0
                       and math.isfinite(result["value"]), f"{name}: value {result['value']}")
        else:
            case.check(result["status"] == "skipped",
                       f"{name}: {result['status']}: {result['message']}")
            case.check(result["value"] is None, f"{name}: a value without a measurement")
            case.check(result["message"], f"{name}: skipped without a reason")
        for key in ("peak", "fraction_of_peak", "native", "ratio_to_native"):
            value = result[key]
            case.check(value is None or (isinstance(value, (int, float)) and value > 0),
                       f"{name}: {key} = {value}")
        if result["peak"] is None:
            case.check(result["fraction_of_peak"] is None, f"{name}: a fraction without a peak")
    devices = sorted({r["selector"] for r in results})
    for device in devices:
        mine = {r["benchmark"]: r for r in results if r["selector"] == device}
        expected = [f"{k}.f32" for k in STREAM] + ["sum.f32", "sgemm", "launch_dispatch",
                                                  "launch_roundtrip", "h2d", "d2h",
                                                  "build_cold", "build_warm"]
        for benchmark in expected:
            case.check(benchmark in mine and mine[benchmark]["status"] == "ok",
                       f"{device}: {benchmark} not measured: "
                       f"{mine.get(benchmark, {}).get('message', 'absent')}")
        # Verified: the stream notes say so only after the final arrays and
        # the dot product matched the scalar replay.
        triad = mine.get("triad.f32", {})
        case.check(triad.get("unit") == "GB/s", f"{device}: triad unit {triad.get('unit')}")
        case.check(mine.get("sgemm", {}).get("unit") == "GFLOP/s", f"{device}: sgemm unit")
        case.check(mine.get("launch_roundtrip", {}).get("unit") == "us", f"{device}: latency unit")
        physical = {r["physical"] for r in mine.values()}
        case.check(len(physical) == 1 and next(iter(physical)).startswith("phys:"),
                   f"{device}: physical {physical}")
    cpu_like = [r for r in results if r["backend"] in ("cpu", "opencl", "vulkan")]
    case.check(len({r["physical"] for r in cpu_like}) <= 1,
               "the CPU devices are not one physical device")


def test_text_table(fixture, case, options):
    done = fixture.run("--quick", "-d", "cpu:0", "--bench", "triad,launch", "--no-native")
    case.require(done.returncode == 0, f"exit {done.returncode}: {done.stderr[-1000:]}")
    lines = done.stdout.splitlines()
    case.check(any(line.startswith("phys:") for line in lines), "no phys: heading")
    header = [line for line in lines if line.strip().startswith("BENCHMARK")]
    case.require(header, "no table header")
    case.check("cpu:0" in header[0] and "PEAK" in header[0] and "NATIVE" in header[0],
               f"header: {header[0]}")
    rows = {line.split()[0]: line.split() for line in lines if line.startswith("  ")
            and len(line.split()) >= 5}
    for name in ("triad.f32", "triad.f64", "launch_roundtrip", "launch_dispatch"):
        case.check(name in rows, f"no row {name}")
    case.check("copy.f32" not in rows, "--bench triad also ran copy")
    case.check(float(rows["triad.f32"][2]) > 0, f"triad row {rows.get('triad.f32')}")
    case.check("theoretical peak" in done.stdout, "no peak line")


def write_program(directory, name, body):
    path = os.path.join(directory, name)
    with open(path, "w") as file:
        file.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def test_native_protocol(fixture, case, options):
    directory = os.path.join(fixture.temp, "native")
    os.makedirs(directory, exist_ok=True)
    log = os.path.join(directory, "arguments")
    # A stand-in for bench/native's native_cpu: records its arguments and
    # answers with fixed figures, so the ratios are known exactly.
    write_program(directory, "native_cpu", f"""echo "$@" >> {log}
case "$*" in
  *"--bench triad"*) echo '{{"benchmark": "triad", "value": 2.5, "unit": "GB/s"}}' ;;
  *"--bench roundtrip"*) echo '{{"benchmark": "other", "value": 1, "unit": "us"}}'
     echo '{{"benchmark": "launch_roundtrip", "value": 4.0, "unit": "us"}}' ;;
esac
""")
    write_program(directory, "native_openblas", "echo 'no BLAS here' >&2; exit 77\n")
    env = dict(fixture.env, ANYGPU_NATIVE_DIR=directory)
    done = fixture.run("--quick", "--json", "-d", "cpu:0", "--bench", "triad,launch,sgemm",
                       "--sgemm-size", "64", "--size", "64K", "--iterations", "4", env=env)
    results = {r["benchmark"]: r for r in load(case, done)["results"]}
    triad = results["triad.f32"]
    case.check(triad["native"] == 2.5, f"triad native {triad['native']}")
    case.check(triad["native_program"] == "native_cpu", f"program {triad['native_program']}")
    case.check(triad["ratio_to_native"] is not None
               and abs(triad["ratio_to_native"] - triad["value"] / 2.5) < 1e-9 * triad["value"],
               f"triad ratio {triad['ratio_to_native']} for value {triad['value']}")
    roundtrip = results["launch_roundtrip"]
    case.check(roundtrip["native"] == 4.0, f"roundtrip native {roundtrip['native']}")
    case.check(roundtrip["ratio_to_native"] is not None and
               abs(roundtrip["ratio_to_native"] - 4.0 / roundtrip["value"]) < 1e-6 * 4.0 /
               roundtrip["value"], "latency ratio is not native time / anygpu time")
    sgemm = results["sgemm"]
    case.check(sgemm["native"] is None, f"sgemm native {sgemm['native']}")
    case.check("no BLAS here" in sgemm["native_note"], f"sgemm note: {sgemm['native_note']}")
    with open(log) as file:
        calls = file.read().splitlines()
    case.check(f"--device 0 --size 65536 --iterations 4 --bench triad" in calls,
               f"native_cpu called as {calls}")
    case.check(any(c.endswith("--bench roundtrip") for c in calls), f"calls {calls}")
    for other in ("copy.f32", "launch_dispatch"):
        if other in results:
            case.check(results[other]["native"] is None, f"{other} has a native figure")


def test_vulkan_roundtrip_interleaved(fixture, case, options):
    """On a Vulkan device the native roundtrip is raw Vulkan in the same
    process (bench/native/vk_roundtrip.c), alternating with anygpu's, with
    no native program (the fixture's ANYGPU_NATIVE_DIR is empty)."""
    done = fixture.run("--json", "-d", "vulkan:0", "--bench", "launch", timeout=120)
    if done.returncode == 1 and "no device to benchmark" in done.stderr:
        raise CaseSkipped("no vulkan:0 here")
    results = {r["benchmark"]: r for r in load(case, done)["results"]}
    roundtrip = results.get("launch_roundtrip", {})
    case.require(roundtrip.get("status") == "ok", f"roundtrip: {roundtrip}")
    case.check(roundtrip["native_program"] == "vk_roundtrip",
               f"native program {roundtrip['native_program']}: {roundtrip['native_note']}")
    case.check(isinstance(roundtrip["native"], (int, float)) and roundtrip["native"] > 0,
               f"native {roundtrip['native']}")
    case.check("alternating with anygpu" in roundtrip["native_note"]
               and "paired ratios" in roundtrip["native_note"], f"note {roundtrip['native_note']}")
    case.check(roundtrip["ratio_to_native"] is not None and
               abs(roundtrip["ratio_to_native"] - roundtrip["native"] / roundtrip["value"]) <
               1e-6 * roundtrip["native"] / roundtrip["value"], "latency ratio")
    done = fixture.run("--json", "-d", "vulkan:0", "--bench", "launch", "--no-native", timeout=120)
    roundtrip = {r["benchmark"]: r for r in load(case, done)["results"]}["launch_roundtrip"]
    case.check(roundtrip["native"] is None, f"--no-native still measured {roundtrip['native']}")


def test_native_failures_are_notes(fixture, case, options):
    directory = os.path.join(fixture.temp, "native-bad")
    os.makedirs(directory, exist_ok=True)
    write_program(directory, "native_cpu", "echo 'not json'; exit 3\n")
    env = dict(fixture.env, ANYGPU_NATIVE_DIR=directory)
    done = fixture.run("--quick", "--json", "-d", "cpu:0", "--bench", "triad", env=env)
    results = {r["benchmark"]: r for r in load(case, done)["results"]}
    triad = results["triad.f32"]
    case.check(triad["status"] == "ok" and triad["native"] is None, f"triad {triad}")
    case.check("exit status 3" in triad["native_note"], f"note {triad['native_note']}")


def test_sgemm_tuning_is_cached(fixture, case, options):
    cache = os.path.join(fixture.temp, "tuning-cache")
    env = dict(fixture.env, ANYGPU_CACHE_DIR=cache)
    notes = []
    for _ in range(2):
        done = fixture.run("--quick", "--json", "-d", "cpu:0", "--bench", "sgemm",
                           "--sgemm-size", "128", env=env)
        result = load(case, done)["results"][0]
        case.require(result["status"] == "ok", f"sgemm: {result['message']}")
        notes.append(result["note"])
    case.check("tuned now" in notes[0], f"first run: {notes[0]}")
    case.check("cached" in notes[1], f"second run: {notes[1]}")
    with open(os.path.join(cache, "bench-sgemm.txt")) as file:
        lines = file.read().splitlines()
    case.check(len(lines) == 1 and lines[0].startswith("cpu|") and "n=128\t" in lines[0],
               f"tuning file: {lines}")
    # A variant name that no longer exists is tuned again, not trusted.
    with open(os.path.join(cache, "bench-sgemm.txt"), "w") as file:
        file.write(lines[0].split("\t")[0] + "\tno_such_variant\n")
    done = fixture.run("--quick", "--json", "-d", "cpu:0", "--bench", "sgemm",
                       "--sgemm-size", "128", env=env)
    result = load(case, done)["results"][0]
    case.check("tuned now" in result["note"], f"after a bad entry: {result['note']}")


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as file:
        data = file.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour {colour})")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + predictor) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def test_html_rendered_by_chromium(fixture, case, options):
    page = os.path.join(fixture.temp, "bench.html")
    done = fixture.run("--quick", "--bench", "triad,launch,sgemm", "--sgemm-size", "64",
                       "--no-native", "--html", page)
    case.require(done.returncode == 0, f"exit {done.returncode}: {done.stderr[-1000:]}")
    with open(page) as file:
        html = file.read()
    case.check("<script" not in html and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""), "the page loads something")
    for chart in ("chart-bandwidth-", "chart-latency-", "chart-sgemm-"):
        case.check(chart in html, f"no {chart} chart")
    colours = {}
    for piece in html.split('<rect class="bar" ')[1:]:
        backend = piece.split('data-backend="')[1].split('"')[0]
        colours[backend] = piece.split('fill="#')[1][:6]
    case.require(colours, "no bars in the page")
    chromium = options.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise CaseSkipped("chromium is not installed (Debian package chromium): "
                          "the page was written but not rendered")
    shot = os.path.join(fixture.temp, "bench.png")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1000,2400",
                    f"--user-data-dir={os.path.join(fixture.temp, 'chromium')}",
                    "file://" + page], capture_output=True, timeout=120)
    case.require(os.path.exists(shot), "chromium wrote no screenshot")
    width, height, channels, rows = png_pixels(shot)
    counts = {backend: 0 for backend in colours}
    wanted = {tuple(int(c[i:i + 2], 16) for i in (0, 2, 4)): b for b, c in colours.items()}
    for line in rows:
        for x in range(0, width * channels, channels):
            backend = wanted.get((line[x], line[x + 1], line[x + 2]))
            if backend:
                counts[backend] += 1
    for backend, count in counts.items():
        # The legend's swatch is 144 pixels; the bars are far more.
        case.check(count > 1000, f"{backend} bars ({colours[backend]}): {count} pixels drawn")


def test_usage_errors(fixture, case, options):
    for args, words in ((["--bench", "nope"], "unknown benchmark 'nope'"),
                        (["--bench", "triad,"], "unknown benchmark ''"),
                        (["--size", "0"], "--size"), (["--size", "12Q"], "--size"),
                        (["--size"], "--size"), (["--iterations", "1"], "--iterations"),
                        (["--repeat", "-3"], "--repeat"), (["--sgemm-size", "x"], "--sgemm-size"),
                        (["--frobnicate"], "unknown option"), (["extra"], "unexpected argument"),
                        (["-d"], "missing selector"), (["--html"], "missing file")):
        done = fixture.run(*args, timeout=30)
        case.check(done.returncode == 2, f"{args}: exit {done.returncode}")
        case.check(words in done.stderr and done.stderr.count("\n") == 1,
                   f"{args}: stderr {done.stderr!r}")
        case.check(done.stdout == "", f"{args}: printed {done.stdout[:200]!r}")
    done = fixture.run("-d", "cuda:7", "--quick", timeout=30)
    case.check(done.returncode == 1 and "no device to benchmark matches 'cuda:7'" in done.stderr,
               f"unmatched selector: exit {done.returncode}, {done.stderr!r}")
    done = fixture.run("--quick", "-d", "cpu:0", "--bench", "launch", "--html",
                       os.path.join(fixture.temp, "no", "such", "dir.html"), timeout=60)
    case.check(done.returncode == 1 and "cannot write" in done.stderr,
               f"unwritable --html: exit {done.returncode}, {done.stderr!r}")
    done = fixture.run("--help", timeout=30)
    case.check(done.returncode == 0 and "--bench" in done.stdout, "--help")


def main():
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("anygpu")
    parser.add_argument("--chromium")
    options = parser.parse_args()
    fixture = Fixture(os.path.abspath(options.anygpu), options.chromium)
    try:
        return run_cases([test_quick_json_schema_and_values, test_text_table, test_native_protocol,
                          test_vulkan_roundtrip_interleaved, test_native_failures_are_notes,
                          test_sgemm_tuning_is_cached, test_html_rendered_by_chromium,
                          test_usage_errors], fixture, options)
    finally:
        shutil.rmtree(fixture.temp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
