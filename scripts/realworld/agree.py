#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs every kernel of every real-world kernel file (scripts/realworld/
extract.sh) on opencl:0, cpu:0 and vulkan:0 with synthesised arguments and
compares the buffers (`anygpu run --compare`, opencl:0 the reference); prints
a line per kernel and the shares: runnable kernels, and of them the share that
agrees per device with opencl:0.

    scripts/realworld/agree.py SRC BUILD [--json OUT] [--only SUBSTRING,...]

SRC is extract.sh's output, BUILD an anygpu build directory. The files are
those measure.py counts: PoCL builds them as written (build_one.c, NATIVE=1)
and they use no images; --only keeps the paths that contain one of the
substrings. Options per file come from options.json (measure.py's
options_for). Arguments (docs/kernel-language.md, "Do they agree?"): buffers
of BUF_BYTES bytes (__constant ones CONST_BYTES) of random values, integers
in [0, INT_HI] and floats in [0, 1); structs and vectors in buffers and by
value laid out member by member from `anygpu compile --signature`; integer
scalars SIZE, float scalars 1.0; __local scratch of 4 times the work-group
size, at least 1024 elements, within LOCAL_BYTES in all; a 1-, 2- or
3-dimensional launch (LAUNCH) after the get_*_id calls in the kernel's body,
with the work-group size of a BLOCK_SIZE or LOCAL_WORK_SIZE macro where the
file has one; HINTS for what the hosts keep consistent. The three devices
run together with a timeout of 3 * TIMEOUT seconds; a run that crashes or
times out is run again device by device (the reference first), then, when
each ran alone, together again (a first build on a cold cache, mcxcl's on
PoCL, takes most of a minute). A kernel that fails, crashes or hangs on
opencl:0 is not runnable, one that does so on another device counts against
that device, one that a device's backend refuses is left out of its share.
Each runnable kernel runs on opencl:0 a second time, in reverse order and
without fma contraction (SECOND_SCHEDULE, REVERSED, NO_CONTRACTION): one
whose buffers move is "nondeterministic", reported apart and left out of
the shares. AGREE_KEEP=DIR keeps the argument files in DIR, so that a kernel's command
(in --json's output) can be run again by hand. JOBS (default 2) run at once."""
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
BUF_BYTES = 1 << 20  # each __global buffer: 262144 floats
CONST_BYTES = 16384  # each __constant buffer (devices have 64 KiB in all)
LOCAL_BYTES = 28672  # __local memory in all (lavapipe has 32 KiB)
TIMEOUT = 20
LAUNCH = {1: ([4096], [64]), 2: ([64, 64], [16, 16]), 3: ([16, 16, 16], [4, 4, 4])}
# Per file (a suffix of its path) and kernel ("*": every kernel of the file):
# what its host does that the rules above do not guess. "local"/"global":
# the launch; "args": {parameter name: --arg spec, or expr:TYPE:N:EXPR for a
# buffer whose element i is EXPR}; "fields": {buffer parameter: {struct
# member: an expression of the element index i, and of j for the elements
# of an array member}}; "options": replaces options.json's -D of the same
# name.
HINTS = {
    # S3D indexes p[(z - 1) * N_GP + gid] for z up to 122: N_GP = global size
    ("shoc/src/opencl/level2/s3d/", "*"): {"options": ["-DN_GP=1024"], "global": [1024]},
    # launches as their hosts make them (shared arrays sized for them)
    ("shoc/src/opencl/level1/gemm/gemmN.cl", "*"): {"local": [16, 4]},
    ("parboil/benchmarks/sgemm/src/opencl_nvidia/kernel.cl", "*"):
        {"local": [32, 16], "global": [64, 32]},
    ("parboil/benchmarks/sgemm/src/opencl_mxpa/kernel.cl", "*"):
        {"local": [16, 8], "global": [64, 32]},
    ("rodinia/opencl/hybridsort/bucketsort_kernels.cl", "*"): {"local": [32], "global": [1024]},
    # one cell of 20x20 (random sizes overflow the __local 41x81 matrix and
    # random offsets make cells overlap)
    ("track_ellipse_kernel.cl", "IMGVF_kernel"): {"global": [256], "args": {
        "I_offsets": "buf:int:64:fill=0", "m_array": "buf:int:64:fill=20",
        "n_array": "buf:int:64:fill=20"}},
    ("track_ellipse_kernel_opt.cl", "IMGVF_kernel"): {"global": [256], "args": {
        "I_offsets": "buf:int:64:fill=0", "m_array": "buf:int:64:fill=20",
        "n_array": "buf:int:64:fill=20"}},
    # single-group kernels (a scan of the groups' sums)
    ("shoc/src/opencl/level1/sort/sort.cl", "top_scan"): {"global": [64]},
    ("shoc/src/opencl/level1/scan/scan.cl", "top_scan"): {"global": [64]},
    # sizes the host keeps consistent with the grid and the __local scratch
    ("rodinia/opencl/nw/nw.cl", "*"): {"global": [64], "args": {
        "cols": "int:65", "blk": "int:4", "block_width": "int:4", "worksize": "int:64",
        "offset_r": "int:0", "offset_c": "int:0"}},
    ("parboil/benchmarks/imghisto/src/opencl/kernel.cl", "*"): {"args": {"R": "int:4"}},
    ("oclPostprocessGL/PostprocessGL.cl", "postprocess"):
        {"args": {"radius": "int:2", "tilew": "int:20"}},
    # a level of a breadth-first search: every node of the frontier has the
    # same cost (random costs make the writers of a node disagree)
    ("rodinia/opencl/bfs/Kernels.cl", "*"): {"args": {"g_cost": "buf:int:262144:fill=0"}},
    # boxes of 100 particles that do not overlap, at most 26 neighbours
    ("rodinia/opencl/lavaMD/kernel/kernel_gpu_opencl.cl", "*"): {
        "local": [128], "fields": {"d_box_gpu": {"offset": "i * 100", "nn": "i % 27"}}},
    # two bins per uint2: the pitch is half the width (64)
    # work-items: each does columns x and x + 32, 16 rows a group, as many
    # groups as the buffers hold; the _compat kernel's second half
    # (tid2 < input_pitch) writes &sm_mappings[store2] without the * 4 and
    # races with the first: 32 work-items keep it out
    ("histo_intermediates.cl", "histo_intermediates_kernel_compat"):
        {"local": [32], "global": [2048], "args": {"input_pitch": "uint:32"}},
    ("histo_intermediates.cl", "histo_intermediates_kernel"):
        {"local": [32], "global": [2048], "args": {"input_pitch": "uint:32"}},
    # (data - minimum) / (maximum - minimum): not 1.0 and 1.0
    ("rodinia/opencl/hybridsort/histogram1024.cl", "*"):
        {"args": {"minimum": "float:0.0", "maximum": "float:1.0"}},
    # BLOCK_SIZE is its shared array: two elements a work-item; the
    # scan_inter kernels read data[2 * iter * gid + ...]
    ("mri-gridding/src/opencl_base/scanLargeArray.cl", "*"):
        {"local": [512], "args": {"iter": "uint:1"}},
    ("mri-gridding/src/opencl_nvidia/scanLargeArray.cl", "*"):
        {"local": [512], "args": {"iter": "uint:1"}},
    # (its DYN_LOCAL_MEM_SIZE is 546: two elements a work-item of 256)
    ("mri-gridding/src/opencl_nvidia/scanLargeArray.cl", "scan_inter1_kernel"):
        {"local": [256], "args": {"iter": "uint:1"}},
    ("mri-gridding/src/opencl_nvidia/scanLargeArray.cl", "scan_inter2_kernel"):
        {"local": [256], "args": {"iter": "uint:1"}},
    ("mri-gridding/src/opencl_semiopti/scanLargeArray.cl", "*"):
        {"local": [512], "args": {"iter": "uint:1"}},
    # a kernel for one work-group (a frontier that fits in one)
    ("shoc/src/opencl/level1/bfs/bfs_uiuc_spill.cl", "BFS_kernel_one_block"): {"global": [64]},
    # bins [0, 2 * 24 Ki) of a 256x256 histogram
    ("histo/src/opencl_base/histo_final.cl", "*"): {"local": [512], "global": [512 * 42],
        "args": {"sm_range_min": "uint:0", "sm_range_max": "uint:1",
                 "histo_height": "uint:256", "histo_width": "uint:256"}},
    ("histo/src/opencl_nvidia/histo_final.cl", "*"): {"local": [512], "global": [512 * 42],
        "args": {"sm_range_min": "uint:0", "sm_range_max": "uint:1",
                 "histo_height": "uint:256", "histo_width": "uint:256"}},
    # the rows' permutation is one (random indices make rows write the same
    # element of the result)
    ("parboil/benchmarks/spmv/src/", "*"): {"args": {"d_perm": "expr:int:262144:i"}},
    # empty bins at the start (random counts overflow binsize, and which
    # sample then gets a slot follows the order of the atomics)
    ("parboil/benchmarks/mri-gridding/src/", "binning_kernel"):
        {"args": {"binCount_g": "buf:uint:262144:fill=0", "binsize": "uint:1048576"}},
    # a small grid of bins, the first z region, launched as the hosts do
    # (the shared cache of atom bins is filled by all work-items)
    ("parboil/benchmarks/cutcp/src/", "*"): {"local": [8, 8, 2], "global": [64, 16, 2], "args": {
        "binDim_x": "int:4", "binDim_y": "int:4", "offset": "int:0", "zRegionIndex": "int:0"}},
    ("parboil/benchmarks/cutcp/src/opencl_nvidia/kernel.cl", "*"): {
        "local": [8, 2, 8], "global": [16, 4, 8], "args": {
            "binDim_x": "int:4", "binDim_y": "int:4", "offset": "int:0", "zRegionIndex": "int:0"}},
    # a group does one FFT of N = 64 points, R = 2 a work-item, at stage
    # Ns = 16 (a stage past N / R writes into the next group's points)
    ("parboil/benchmarks/fft/src/opencl_base/fft_kernel.cl", "GPU_FFT_Global"):
        {"local": [32], "args": {"Ns": "int:16"}},
    # divisions that start in order, 32 float4 apart, a work-item each
    ("rodinia/opencl/hybridsort/mergesort.cl", "mergeSortPass"): {"args": {
        "nrElems": "int:32", "threadsPerDiv": "int:1", "constStartAddr": "expr:int:1025:32 * i"}},
    # a 192x64 image in windows of 192x8 (its __local buffer is sized for them)
    ("rodinia/opencl/dwt2d/com_dwt.cl", "cl_fdwt53Kernel"): {"local": [192, 1], "global": [192, 8],
        "args": {"sx": "int:192", "sy": "int:64", "steps": "int:1", "WIN_SIZE_X": "int:192",
                 "WIN_SIZE_Y": "int:8"}},
    ("rodinia/opencl/lud/lud_kernel.cl", "lud_diagonal"):
        {"local": [16], "global": [16], "args": {"offset": "int:0"}},
    ("rodinia/opencl/lud/lud_kernel.cl", "lud_perimeter"):
        {"local": [32], "global": [96], "args": {"offset": "int:0"}},
    ("rodinia/opencl/lud/lud_kernel.cl", "lud_internal"):
        {"global": [48, 48], "args": {"offset": "int:0"}},
    # a B+ tree's nodes hold their keys in order: one work-item of a node
    # finds its key between keys[thid] and keys[thid + 1] (random keys let
    # several write offsetD[bid] at once)
    ("rodinia/opencl/b+tree/kernel/kernel_gpu_opencl.cl", "findK"):
        {"fields": {"knodesD": {"keys": "j"}}},
    # the radix sort's scatter: in[] as the previous passes leave it and
    # isums[] the exclusive scan of its digit counts (digit-major, then
    # group), so that every element has a place of its own; with random
    # offsets places collide and the last writer wins. 64 groups of 256
    # keys, each digit 16 times a group.
    ("shoc/src/opencl/level1/sort/sort.cl", "bottom_scan"): {"args": {
        "n": "int:16384", "shift": "int:0",
        "in": "expr:uint:16384:(i * 7) % 16 + 16 * ((i * 40503) % 65536)",
        "isums": "expr:uint:1024:1024 * (i // 64) + 16 * (i % 64)"}},
}
for variant in ("base", "nvidia"):  # (PoCL does not build the semiopti one)
    # the radix sort's scatter, as SHOC's: each group's 1024 keys sorted by
    # the digit (splitSort's work; 64 of each digit) and histo[] the
    # exclusive scan of the digit counts (digit-major, then group); 16
    # groups of SORT_BS = 256 work-items, 4 keys each, the first digit
    HINTS[(f"mri-gridding/src/opencl_{variant}/sort.cl", "splitRearrange")] = {
        "local": [256], "global": [4096], "args": {
            "numElems": "int:16384", "iter": "int:0",
            "keys_i": "expr:uint:16384:(i % 1024) // 64 + 16 * ((i * 40503) % 65536)",
            "histo": "expr:uint:256:64 * i"}}
for variant, width, groups in (("base", 256, 14), ("nvidia", 512, 7)):
    # mappings as histo_intermediates makes them (block 0 or 1, index
    # below KB, a byte offset 0, 8, 16 or 24), two groups of ranges; a
    # histogram wide enough for two ranges of KB Ki bins (the NVIDIA one's
    # KB is 48: in a 256x256 histogram a group's second range overlaps the
    # next group's first, and which copy lands last follows the groups'
    # order), as few groups as the 1 MiB buffer holds
    HINTS[(f"histo/src/opencl_{variant}/histo_main.cl", "histo_main_kernel")] = {
        "local": [768, 1], "global": [768 * groups, 2], "args": {
            "sm_mappings": "expr:uchar:16384:[(i // 4) % 2, (i // 8) % 24, (i * 7) % 256,"
                           " 8 * ((i // 4) % 4)][i % 4]",
            "num_elements": "uint:4096", "sm_range_min": "uint:0", "sm_range_max": "uint:1",
            "histo_height": "uint:256", "histo_width": f"uint:{width}"}}
for variant in ("base", "nvidia"):  # a grid of 16^3 (its default is 256^3, 64 MiB a buffer)
    HINTS[(f"mri-gridding/src/opencl_{variant}/GPU_kernels.cl", "gridding_GPU")] = {
        "options": ["-DCUTOFF2_VAL=2.25", "-DCUTOFF_VAL=1.5", "-DCEIL_CUTOFF_VAL=2.0",
                    "-DGRIDSIZE_VAL1=16", "-DGRIDSIZE_VAL2=16", "-DGRIDSIZE_VAL3=16",
                    "-DSIZE_XY_VAL=256", "-DONE_OVER_CUTOFF2_VAL=0.444444"],
        "local": [8, 4, 4], "global": [16, 64, 4]}
for variant in ("base", "nvidia"):  # a frame of 2x2 macroblocks, launched as main.cpp does
    sad = f"benchmarks/sad/src/opencl_{variant}/kernel.cl"
    frame = {"mb_width": "int:2", "mb_height": "int:2"}
    HINTS[(sad, "mb_sad_calc")] = {"local": [61, 1], "global": [488, 8], "args": frame}
    HINTS[(sad, "larger_sad_calc_8")] = {"local": [32, 4], "global": [64, 8], "args": frame}
    HINTS[(sad, "larger_sad_calc_16")] = {"local": [32, 1], "global": [64, 2], "args": frame}
MACRO_LOCAL = ("BLOCK_SIZE", "LOCAL_WORK_SIZE")
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


def buffer_spec(p, nbytes, rng, work, fields=None):
    base, count = split_type(p["element_type"])
    if base in SCALARS and base != "bool":
        n = max(1, nbytes // p["element_size"]) * count
        hi = INT_HI if base in INTS else 1
        return f"buf:{base}:{n}:random=0,{hi}"
    if base not in SCALARS and not p.get("struct"):
        raise Unsynthesisable(f"a buffer of '{p['element_type']}'")
    size = p["element_size"]
    n = max(1, nbytes // size)
    data = bytearray()
    for i in range(n):
        one = bytearray(value_bytes(p["element_type"], size, p.get("struct"), rng, False))
        for m in (p["struct"]["members"] if fields else []):
            if m["name"] in fields:  # a member the hint sets: an expression of i (and j)
                base, count = split_type(m["type"])
                code, width = SCALARS[base]
                values = [eval(fields[m["name"]], {"i": i, "j": j}) for j in range(count)]
                one[m["offset"]:m["offset"] + width * count] = struct.pack(
                    "<%d%s" % (count, code), *values)
        data += one
    path = os.path.join(work, f"arg{p['index']}.bin")
    pathlib.Path(path).write_bytes(data)
    # structs of floats only (and float vectors) compare as floats, within
    # the tolerance; others byte for byte
    kinds = leaf_types(p["element_type"], p.get("struct"))
    for t in ("float", "double"):
        if kinds == {t} and len(data) % SCALARS[t][1] == 0:
            return f"buf:{t}:{len(data) // SCALARS[t][1]}:file={path}"
    return f"buf:uchar:{len(data)}:file={path}"


def leaf_types(t, info):
    base, _ = split_type(t)
    if base in SCALARS:
        return {base}
    out = set()
    for m in (info or {}).get("members", []):
        out |= leaf_types(m["type"], m.get("struct"))
    return out


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


def hints_for(rel, name):
    out = {}
    for (suffix, kernel), hint in HINTS.items():
        if (rel.endswith(suffix) or suffix.endswith("/") and rel.startswith(suffix)) \
                and kernel in ("*", name):
            out.update(hint)
    return out


def macro_local(text, options, dims, folder):
    """The work-group size a BLOCK_SIZE-like macro of the file (or -D, or a
    header of its folder it includes) says, per dimension, or None."""
    for header in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        if (folder / header).is_file():
            text += "\n" + (folder / header).read_text(errors="replace")
    for name in MACRO_LOCAL:
        values = [o.split("=", 1)[1] for o in options if o.startswith(f"-D{name}=")]
        m = re.search(r"^\s*#\s*define\s+" + name + r"\s+\(?(\d+)\)?\s*$", text, re.M)
        value = int(values[-1]) if values and values[-1].isdigit() else \
            int(m.group(1)) if m else None
        if value and value ** dims <= 1024:
            return [value] * dims
    return None


def launch_for(kernel, text, options, hint, folder):
    reqd = kernel.get("reqd_work_group_size")
    dims = kernel_dims(text, kernel["name"])
    glob, local = (list(x) for x in LAUNCH[dims])
    by_macro = macro_local(text, options, dims, folder)
    if by_macro:
        local = by_macro
        glob = [max(g, 4 * loc) // loc * loc for g, loc in zip(glob, local)]
    if reqd:
        local = [int(x) for x in reqd]
        while local and local[-1] == 1 and len(local) > dims:
            local.pop()
        glob = [loc * max(1, g // loc if g >= loc else 4)
                for loc, g in zip(local, glob + [1] * (len(local) - len(glob)))]
    if "local" in hint:
        local = list(hint["local"])
    if "global" in hint:
        glob = list(hint["global"])
    return glob, local


def arguments(kernel, local, rng, work, hint):
    lsize = 1
    for x in local:
        lsize *= x
    args = []
    nlocal = sum(p["kind"] == "local" for p in kernel["params"])
    local_bytes = (LOCAL_BYTES - kernel.get("local_memory_bytes", 0)) // max(1, nlocal)
    for p in kernel["params"]:
        kind, t = p["kind"], p["element_type"]
        if p["name"] in hint.get("args", {}) and hint["args"][p["name"]].startswith("expr:"):
            _, base, n, expr = hint["args"][p["name"]].split(":", 3)  # element i is expr
            path = os.path.join(work, f"arg{p['index']}.bin")
            code = SCALARS[base][0]
            pathlib.Path(path).write_bytes(b"".join(struct.pack("<" + code, eval(expr))
                                                    for i in range(int(n))))
            args.append(f"buf:{base}:{n}:file={path}")
        elif p["name"] in hint.get("args", {}):
            args.append(hint["args"][p["name"]])
        elif kind in ("global", "constant"):
            args.append(buffer_spec(p, CONST_BYTES if kind == "constant" else BUF_BYTES,
                                    rng, work, hint.get("fields", {}).get(p["name"])))
        elif kind == "local":
            n = min(max(4 * lsize, 1024) * p["element_size"], local_bytes) // p["element_size"]
            base, count = split_type(t)
            if base in SCALARS and base != "bool":
                args.append(f"local:{base}:{n * count}")
            else:
                args.append(f"local:uchar:{n * p['element_size']}")
        elif kind == "value":
            base, count = split_type(t)
            if base in SCALARS and count == 1 and base != "bool":
                args.append(f"{base}:{SIZE}" if base in INTS else f"{base}:1.0")
            elif p["size"] > 128:
                raise Unsynthesisable(f"'{t}' by value: {p['size']} bytes, more than the 128 "
                                      "that --arg bytes: takes")
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


def outcome(code, text, limit):
    if code is None:
        return f"timeout ({limit} s)"
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
                (m.group(2) + ": " + re.sub(r"^[:\s]*(skipped:\s*)?", "", m.group(3))).strip()
    return state


def compare(text):
    """{device: [mismatch lines]} for the devices compared with the reference."""
    bad = {}
    for line in text.splitlines():
        m = re.match(r"\s*MISMATCH: (\S+) differs from (\S+) in buffer '([^']*)' "
                     r"\(argument (\d+)\): (.*)", line)
        if m:
            bad.setdefault(m.group(1), []).append(
                f"'{m.group(3)}' (argument {m.group(4)}): {m.group(5)}")
    return bad


# The reference run again, its buffers compared with the first run's: the
# same kernel with its work-items and work-groups in reverse order (macros
# remap get_local_id, get_group_id and get_global_id, so that each logical
# work-item computes what it did, in the opposite order), on PoCL's basic
# device (one thread, the groups one after another, where the first run
# spread them over every core), and without fma contraction. OpenCL allows
# each of these; a race-free kernel whose result does not hang on rounding
# gives the same buffers. One that does not is "nondeterministic" (a race,
# atomics whose order shows, uninitialised memory, or a result that moves
# with the contraction PoCL does by default), left out of the shares
# (docs/kernel-language.md, "Do they agree?").
SECOND_SCHEDULE = {"POCL_DEVICES": "basic"}
REVERSED = ("#define get_local_id(d) (get_local_size(d) - 1 - get_local_id(d))\n"
            "#define get_group_id(d) (get_num_groups(d) - 1 - get_group_id(d))\n"
            "#define get_global_id(d) (get_group_id(d) * get_local_size(d) + get_local_id(d)"
            " + get_global_offset(d))\n")
NO_CONTRACTION = "#pragma OPENCL FP_CONTRACT OFF\n"
RTOL = {"float": 1e-4, "double": 1e-10}
ARRAY_CODES = {"char": "b", "uchar": "B", "short": "h", "ushort": "H", "int": "i", "uint": "I",
               "long": "q", "ulong": "Q", "float": "f", "double": "d"}


def buffers_differ(first, second, kind):
    """Where two dumps of one buffer differ beyond --compare's default
    tolerance (floats: |a - b| <= rtol * max|b|, NaN equal to NaN; others
    bit for bit), in words; "" when they agree."""
    if first == second:
        return ""
    if len(first) != len(second):
        return f"{len(first)} bytes against {len(second)}"
    a, b = array.array(ARRAY_CODES[kind]), array.array(ARRAY_CODES[kind])
    a.frombytes(first)
    b.frombytes(second)
    if kind in RTOL:
        atol = RTOL[kind] * max((abs(x) for x in b if x == x and abs(x) != float("inf")),
                                default=0.0)
        bad = [i for i, (x, y) in enumerate(zip(a, b))
               if not (x == y or (x != x and y != y) or abs(x - y) <= atol + RTOL[kind] * abs(y))]
    else:
        bad = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    if not bad:
        return ""
    return (f"{len(bad)} element{'s' if len(bad) > 1 else ''}; first at index {bad[0]}: "
            f"{a[bad[0]]} then {b[bad[0]]}")


def second_run(command, path, args, first_dir, work, limit, prefix, tag):
    """The reference's run of the kernel with `prefix` before its source, on
    SECOND_SCHEDULE: what differs from the first run (in first_dir), ""
    when nothing does, None when it did not run."""
    source = os.path.join(work, tag + ".cl")
    pathlib.Path(source).write_text(prefix + path.read_text(errors="replace"))
    out_dir = os.path.join(work, tag)
    os.makedirs(out_dir, exist_ok=True)
    again = list(command)
    again[2] = source
    again += ["-I", str(path.parent), "--device", REFERENCE, "--out", out_dir]
    try:
        done = subprocess.run(again, capture_output=True, text=True, timeout=limit,
                              env={**os.environ, **SECOND_SCHEDULE})
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        return None
    prefix = REFERENCE.replace(":", "-") + "."
    differ = []
    for name in sorted(os.listdir(out_dir)):
        m = re.match(re.escape(prefix) + r"(\d+)\.(.*)\.bin$", name)
        first = os.path.join(first_dir, name)
        if not m or not os.path.exists(first):
            continue
        spec = args[int(m.group(1))].split(":")
        kind = spec[1] if spec[0] == "buf" and spec[1] in ARRAY_CODES else "uchar"
        why = buffers_differ(pathlib.Path(first).read_bytes(),
                             pathlib.Path(os.path.join(out_dir, name)).read_bytes(), kind)
        if why:
            differ.append(f"'{m.group(2)}' (argument {m.group(1)}): {why}")
    return "; ".join(differ)


def determinacy(command, path, args, first_dir, work, limit):
    """"" when the reference gives the same buffers in reverse order and
    without contraction, None when that run failed, else what differs and
    why (the order, the rounding, or both: a run in reverse order alone
    tells)."""
    differ = second_run(command, path, args, first_dir, work, limit,
                        REVERSED + NO_CONTRACTION, "second")
    if not differ:
        return differ
    order = second_run(command, path, args, first_dir, work, limit, REVERSED, "reversed")
    cause = "without fma contraction" if order == "" else "in reverse order"
    return f"{REFERENCE} {cause} ({', '.join(f'{k}={v}' for k, v in SECOND_SCHEDULE.items())}) " \
           f"differs from its first run: {order or differ}"


def check(path, src, build, table, kernel, text):
    result = {"file": str(path.relative_to(src)), "kernel": kernel["name"]}
    hint = hints_for(result["file"], kernel["name"])
    options = options_for(path, src, table)
    for o in hint.get("options", []):
        options = [x for x in options if x.split("=")[0] != o.split("=")[0]] + [o]
    rng = random.Random(f"{result['file']}:{kernel['name']}")
    keep = os.environ.get("AGREE_KEEP")  # a folder: keep the argument files there
    if keep:
        keep = os.path.join(keep, result["file"].replace("/", "_") + "." + kernel["name"])
        os.makedirs(keep, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="agpu_agree_") as work:
        work = keep or work
        try:
            glob, local = launch_for(kernel, text, options, hint, path.parent)
            args = arguments(kernel, local, rng, work, hint)
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
        first_dir = os.path.join(work, "first")  # the buffers after the first run
        os.makedirs(first_dir, exist_ok=True)
        together = command + ["--compare", "--device", ";".join(DEVICES), "--out", first_dir]
        limit = TIMEOUT * len(DEVICES)
        code, out = run(together, limit)
        if code is None or code < 0:
            # which device: each alone, the reference first (a first build on
            # a cold cache, mcxcl's on PoCL 40 s, takes most of the time)
            state = {}
            for d in DEVICES:
                c, o = run(command + ["--device", d], limit)
                state[d] = "ran" if c == 0 else outcome(c, o, limit)
                if d == REFERENCE and c != 0:
                    break
            if state[REFERENCE] != "ran":
                result.update(status="not runnable", why=f"{REFERENCE}: {state[REFERENCE]}")
                return result
            if not all(s == "ran" for s in state.values()):
                result["devices"] = state
                result.update(status="disagree", why="; ".join(
                    f"{d}: {s}" for d, s in state.items() if s != "ran"))
                return result
            code, out = run(together, limit)  # built now
            if code is None or code < 0:
                result.update(status="not runnable",
                              why="together: " + outcome(code, out, limit) + "; alone each ran")
                return result
        state = per_device(out)
        result["devices"] = state
        if state.get(REFERENCE) != "ran":
            result.update(status="not runnable",
                          why=f"{REFERENCE}: {state.get(REFERENCE) or outcome(code, out, limit)}")
            return result
        differ = determinacy(command, path, args, first_dir, work, limit)
        if differ:
            result.update(status="nondeterministic", why=differ[:600])
            return result
        if differ is None:
            result["second_run"] = "failed: no verdict on determinacy"
        bad = compare(out)
        for d in DEVICES[1:]:
            if state.get(d) == "ran" and d in bad:
                state[d] = "disagree: " + "; ".join(bad[d])
        failed = {d: s[:300] for d, s in state.items() if s != "ran"}
        if all(s.startswith("skipped") for s in failed.values()):
            result["status"] = "agree"  # on every device that builds it
            if failed:
                result["why"] = "; ".join(f"{d}: {s}" for d, s in failed.items())
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
    if "--only" in sys.argv:  # comma-separated substrings of the paths
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
        files = [f for f in files if any(o in str(f) for o in only)]
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
    alive = [r for r in results if r["status"] != "not runnable"]
    varies = [r for r in alive if r["status"] == "nondeterministic"]
    runnable = [r for r in alive if r["status"] != "nondeterministic"]
    print()
    print(f"{len(results)} kernels in {nfiles} files; runnable on {REFERENCE}: "
          f"{len(alive)} ({100 * len(alive) / max(1, len(results)):.1f}%), of which "
          f"{len(varies)} nondeterministic (their result on {REFERENCE} moves with the order "
          f"of the work-items or with fma contraction; left out below): {len(runnable)} compared")
    for d in DEVICES[1:]:
        ran = [r for r in runnable if r["devices"].get(d, "skipped").split(":")[0] != "skipped"]
        same = [r for r in ran if r["devices"][d] == "ran"]
        print(f"{d:9} vs {REFERENCE}: ran {len(ran)} of {len(runnable)}, agree {len(same)} of "
              f"{len(ran)} ({100 * len(same) / max(1, len(ran)):.1f}%; "
              f"{100 * len(same) / max(1, len(runnable)):.1f}% of the runnable)")
    every = [r for r in runnable if r["status"] == "agree"]
    print(f"all devices agree: {len(every)} of {len(runnable)} "
          f"({100 * len(every) / max(1, len(runnable)):.1f}%)")


if __name__ == "__main__":
    main()
