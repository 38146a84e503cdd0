#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs every kernel of every real-world kernel file (scripts/realworld/
extract.sh) on opencl:0, cpu:0 and vulkan:0 with synthesised arguments and
compares the buffers (`anygpu run --compare`, opencl:0 the reference); prints
a line per kernel and the shares: runnable kernels, and of them the share that
agrees per device with opencl:0.

    scripts/realworld/agree.py SRC BUILD [--json OUT] [--only SUBSTRING]

SRC is extract.sh's output, BUILD an anygpu build directory. The files are
those measure.py counts: PoCL builds them as written (build_one.c, NATIVE=1)
and they use no images. Options per file come from options.json (measure.py's
options_for). Arguments (see docs/kernel-language.md, "Do they agree?"):
buffers of BUF_BYTES bytes (constant ones CONST_BYTES) of random values,
integers in [0, INT_HI] and floats in [0, 1); structs and vectors in buffers
and by value are laid out member by member from `anygpu compile --signature`;
integer scalars SIZE, float scalars 1.0; __local scratch of 4 times the
work-group size; a 1-, 2- or 3-dimensional launch after the get_*_id calls
in the kernel's body. Each run has a timeout of TIMEOUT seconds; a kernel that
fails, crashes or hangs on opencl:0 is not runnable, one that does so on
another device counts against that device. JOBS (default 2) runs at once."""
import array
import concurrent.futures
import json
import os
import pathlib
import random
import re
import struct
import subprocess
import sys
import tempfile

from measure import HERE, options_for

DEVICES = ["opencl:0", "cpu:0", "vulkan:0"]
REFERENCE = DEVICES[0]
SEED = 7
SIZE = 64            # integer scalars: sizes, widths, counts
INT_HI = 63          # integers in buffers: [0, INT_HI], in bounds as indices
BUF_BYTES = 1 << 20  # each __global buffer (4 MiB would be 64^3 floats ...)
CONST_BYTES = 16384  # each __constant buffer (devices have 64 KiB in all)
TIMEOUT = 20
LAUNCH = {1: ([4096], [64]), 2: ([64, 64], [16, 16]), 3: ([16, 16, 16], [4, 4, 4])}
SCALARS = {"char": ("b", 1), "uchar": ("B", 1), "short": ("h", 2), "ushort": ("H", 2),
           "int": ("i", 4), "uint": ("I", 4), "long": ("q", 8), "ulong": ("Q", 8),
           "float": ("f", 4), "double": ("d", 8), "bool": ("B", 1)}
INTS = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong"}


class Unsynthesisable(Exception):
    pass


def split_type(t):
    """'float4' -> ('float', 4), 'int[257]' -> ('int', 257), 'uint' -> ('uint', 1)."""
    m = re.fullmatch(r"(.*)\[(\d+)\]", t)
    if m:
        base, n = split_type(m.group(1))
        return base, n * int(m.group(2))
    m = re.fullmatch(r"([a-z]+?)(2|3|4|8|16)", t)
    if m and m.group(1) in SCALARS:
        return m.group(1), 4 if m.group(2) == "3" else int(m.group(2))
    return t, 1


def value_bytes(t, size, info, rng, scalar):
    """Bytes of one value of type t (size bytes; info: the signature's struct
    description) filled member by member; scalar: integers SIZE and floats
    1.0 (values by value) or random ones (buffer contents)."""
    base, count = split_type(t)
    if base in SCALARS:
        code, width = SCALARS[base]
        if base == "bool":
            vals = [1 if scalar else rng.randint(0, 1) for _ in range(count)]
        elif base in INTS:
            vals = [SIZE if scalar else rng.randint(0, INT_HI) for _ in range(count)]
        else:
            vals = [1.0 if scalar else rng.random() for _ in range(count)]
        out = struct.pack("<%d%s" % (count, code), *vals)
        return out + bytes(size - len(out))
    if info and info.get("members") is not None:
        out = b""
        for _ in range(max(1, size // info["size"])):  # an array of structs too
            one = bytearray(info["size"])
            for m in info["members"]:
                b = value_bytes(m["type"], m["size"], m.get("struct"), rng, scalar)
                one[m["offset"]:m["offset"] + len(b)] = b
            out += bytes(one)
        return out + bytes(size - len(out))
    raise Unsynthesisable(f"a value of type '{t}'")


def buffer_spec(p, nbytes, rng, work):
    base, count = split_type(p["element_type"])
    if base in SCALARS and base != "bool":
        n = max(1, nbytes // p["element_size"]) * count
        hi = INT_HI if base in INTS else 1
        return f"buf:{base}:{n}:random=0,{hi}"
    if base not in SCALARS and not p.get("struct"):
        raise Unsynthesisable(f"a buffer of '{p['element_type']}'")
    size = p["element_size"]
    n = max(1, nbytes // size)
    data = b"".join(value_bytes(p["element_type"], size, p.get("struct"), rng, False)
                    for _ in range(n))
    path = os.path.join(work, f"arg{p['index']}.bin")
    pathlib.Path(path).write_bytes(data)
    return f"buf:uchar:{len(data)}:file={path}"


def kernel_dims(text, name):
    """1, 2 or 3: the highest dimension the kernel's body (else the file)
    asks get_global_id and the like for."""
    m = re.search(r"\b" + re.escape(name) + r"\s*\(", text)
    body = text
    if m:
        start = text.find("{", m.end())
        depth, i = 0, start
        while 0 <= i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                body = text[start:i + 1]
                break
            i += 1
    pattern = r"get_(?:global|local|group)_(?:id|size)\s*\(\s*(\d)|get_num_groups\s*\(\s*(\d)"
    found = [int(a or b) for a, b in re.findall(pattern, body)]
    if not found and body is not text:
        found = [int(a or b) for a, b in re.findall(pattern, text)]
    return min(3, max(found, default=0) + 1)


def launch_for(kernel, text):
    reqd = kernel.get("reqd_work_group_size")
    dims = kernel_dims(text, kernel["name"])
    glob, local = (list(x) for x in LAUNCH[dims])
    if reqd:
        local = [int(x) for x in reqd]
        while local and local[-1] == 1 and len(local) > dims:
            local.pop()
        glob = [loc * max(1, g // loc if g >= loc else 4)
                for loc, g in zip(local, glob + [1] * (len(local) - len(glob)))]
    return glob, local


def arguments(kernel, local, rng, work):
    lsize = 1
    for x in local:
        lsize *= x
    args = []
    for p in kernel["params"]:
        kind, t = p["kind"], p["element_type"]
        if kind in ("global", "constant"):
            args.append(buffer_spec(p, CONST_BYTES if kind == "constant" else BUF_BYTES,
                                    rng, work))
        elif kind == "local":
            base, count = split_type(t)
            if base in SCALARS and base != "bool":
                args.append(f"local:{base}:{4 * lsize * count}")
            else:
                args.append(f"local:uchar:{4 * lsize * p['element_size']}")
        elif kind == "value":
            base, count = split_type(t)
            if base in SCALARS and count == 1 and base != "bool":
                args.append(f"{base}:{SIZE}" if base in INTS else f"{base}:1.0")
            else:
                args.append("bytes:" + value_bytes(t, p["size"], p.get("struct"),
                                                   rng, True).hex())
        else:
            raise Unsynthesisable(f"parameter '{p['name']}' of kind '{kind}'")
    return args


def run(command, timeout=TIMEOUT):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, ""
    return done.returncode, done.stdout + done.stderr


def first_line(text, word):
    for line in text.splitlines():
        if word in line:
            return line.strip()
    lines = text.strip().splitlines()
    return lines[-1].strip() if lines else ""


def outcome(code, text):
    if code is None:
        return f"timeout ({TIMEOUT} s)"
    if code < 0:
        return f"crash (signal {-code})"
    return first_line(text, "FAILED") or f"exit {code}"


def per_device(text):
    """{device: "ran" | "FAILED: ..." | "skipped ..."} from a run's output."""
    state = {}
    for line in text.splitlines():
        m = re.match(r"(\S+:\d+)\s+(ran in|FAILED|skipped)(.*)", line)
        if m:
            state[m.group(1)] = "ran" if m.group(2) == "ran in" else \
                (m.group(2) + m.group(3)).strip()
    return state


def compare(text):
    """{device: [mismatch lines]} for the devices compared with the reference."""
    bad = {}
    for line in text.splitlines():
        m = re.match(r"\s*MISMATCH: (\S+) differs from (\S+) in buffer '([^']*)' \(argument (\d+)\): (.*)",
                     line)
        if m:
            bad.setdefault(m.group(1), []).append(f"'{m.group(3)}' (argument {m.group(4)}): {m.group(5)}")
    return bad


def check(path, src, build, table, kernel, text):
    options = options_for(path, src, table)
    result = {"file": str(path.relative_to(src)), "kernel": kernel["name"]}
    rng = random.Random(f"{result['file']}:{kernel['name']}")
    with tempfile.TemporaryDirectory(prefix="agpu_agree_") as work:
        try:
            glob, local = launch_for(kernel, text)
            args = arguments(kernel, local, rng, work)
        except Unsynthesisable as e:
            result.update(status="not runnable", why=f"cannot synthesise {e}")
            return result
        result["launch"] = {"global": glob, "local": local}
        command = [str(build / "tools/anygpu"), "run", str(path), *options,
                   "--kernel", kernel["name"], "--global", ",".join(map(str, glob)),
                   "--local", ",".join(map(str, local)), "--seed", str(SEED)]
        for a in args:
            command += ["--arg", a]
        result["command"] = " ".join(command)
        code, out = run(command + ["--compare", "--device", ";".join(DEVICES)],
                        TIMEOUT * len(DEVICES))
        if code is None or code < 0:
            # which device: each alone, the reference first
            state = {}
            for d in DEVICES:
                c, o = run(command + ["--device", d])
                state[d] = "ran" if c == 0 else outcome(c, o)
                if d == REFERENCE and c != 0:
                    break
            if state[REFERENCE] != "ran":
                result.update(status="not runnable", why=f"{REFERENCE}: {state[REFERENCE]}")
                return result
            result["devices"] = state
            if all(s == "ran" for s in state.values()):
                result.update(status="not runnable",
                              why="together: " + outcome(code, out) + "; alone each ran")
                return result
            result.update(status="disagree", why="; ".join(
                f"{d}: {s}" for d, s in state.items() if s != "ran"))
            return result
        state = per_device(out)
        result["devices"] = state
        if state.get(REFERENCE) != "ran":
            result.update(status="not runnable",
                          why=f"{REFERENCE}: {state.get(REFERENCE) or outcome(code, out)}")
            return result
        bad = compare(out)
        for d in DEVICES[1:]:
            if state.get(d) == "ran" and d in bad:
                state[d] = "disagree: " + "; ".join(bad[d])
        failed = {d: s for d, s in state.items() if s != "ran"}
        if not failed:
            result["status"] = "agree"
        else:
            result.update(status="disagree",
                          why="; ".join(f"{d}: {s}" for d, s in failed.items()))
        return result


def native_ok(one, path, src, table):
    env = {**os.environ, "NATIVE": "1"}
    done = subprocess.run([one, REFERENCE, str(path), *options_for(path, src, table),
                           "-I", str(path.parent)], capture_output=True, text=True,
                          timeout=300, env=env)
    return done.returncode == 0


def signature(path, src, build, table):
    done = subprocess.run([str(build / "tools/anygpu"), "compile", str(path),
                           *options_for(path, src, table), "--signature"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return None, first_line(done.stderr, "error")
    return json.loads(done.stdout)["kernels"], ""


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, build = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    table = json.loads((HERE / "options.json").read_text())
    files = sorted(src.rglob("*.cl"))
    if "--only" in sys.argv:
        files = [f for f in files if sys.argv[sys.argv.index("--only") + 1] in str(f)]
    work = tempfile.mkdtemp(prefix="agpu_agree_")
    one = os.path.join(work, "build_one")
    subprocess.run([os.environ.get("CC", "cc"), "-O1", "-I", str(HERE.parent.parent / "api"),
                    str(HERE / "build_one.c"), "-L", str(build), "-lanygpu",
                    "-Wl,-rpath," + str(build), "-o", one], check=True)
    jobs = int(os.environ.get("JOBS", "2"))
    results, tasks = [], []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        def prepare(path):
            kernels, error = signature(path, src, build, table)
            if kernels is None and "image" in error:
                return path, None, "uses images"
            if not native_ok(one, path, src, table):
                return path, None, "PoCL does not build it as written"
            return path, kernels, error
        for path, kernels, error in pool.map(prepare, files):
            if kernels is None and error in ("uses images", "PoCL does not build it as written"):
                print(f"{path.relative_to(src)}: left out ({error})", file=sys.stderr)
                continue
            if kernels is None:
                results.append({"file": str(path.relative_to(src)), "kernel": "*",
                                "status": "not runnable", "why": "build refusal: " + error})
                continue
            text = path.read_text(errors="replace")
            tasks += [(path, k, text) for k in kernels]
        for r in pool.map(lambda t: check(t[0], src, build, table, t[1], t[2]), tasks):
            results.append(r)
            print(f"{r['file']} {r['kernel']}: {r['status']}"
                  + (f" ({r['why']})" if r.get("why") else ""), flush=True)
    if "--json" in sys.argv:
        pathlib.Path(sys.argv[sys.argv.index("--json") + 1]).write_text(
            json.dumps(results, indent=1))
    nfiles = len({r["file"] for r in results})
    runnable = [r for r in results if r["status"] != "not runnable"]
    print()
    print(f"{len(results)} kernels in {nfiles} files; runnable on {REFERENCE}: "
          f"{len(runnable)} ({100 * len(runnable) / max(1, len(results)):.1f}%)")
    for d in DEVICES[1:]:
        ran = [r for r in runnable if r["devices"].get(d, "").split(":")[0] in ("ran", "disagree")]
        same = [r for r in ran if r["devices"][d] == "ran"]
        print(f"{d:9} vs {REFERENCE}: ran {len(ran)} of {len(runnable)}, agree {len(same)} of "
              f"{len(ran)} ({100 * len(same) / max(1, len(ran)):.1f}%; "
              f"{100 * len(same) / max(1, len(runnable)):.1f}% of the runnable)")
    every = [r for r in runnable if r["status"] == "agree"]
    print(f"all devices agree: {len(every)} of {len(runnable)} "
          f"({100 * len(every) / max(1, len(runnable)):.1f}%)")


if __name__ == "__main__":
    main()
