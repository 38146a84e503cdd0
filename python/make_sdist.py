# SPDX-License-Identifier: Apache-2.0
"""Builds the anygpu sdist: python/ alone cannot be one (its C library is the
repository's CMake project, one folder up), so this stages the files the build
needs (docs/python.md, "sdist"):

    python python/make_sdist.py [OUTDIR]     # default: dist/

into a tree with the repository's layout: CMakeLists.txt, LICENSE, README.md,
CHANGELOG.md, api/, backends/, kernels/, cmake/, tools/, python/ and the
in-process Vulkan roundtrip of bench/native/, with a
top-level pyproject.toml that is python/pyproject.toml with the C project in
"." and the package in python/anygpu. Files come from `git ls-files` (what is
committed or staged). Then `python -m build --sdist` (scikit-build-core) packs
it; pip install anygpu-<version>.tar.gz builds it as pip install ./python does."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# bench/native/vk_roundtrip.*: the anygpu command's in-process raw Vulkan
# roundtrip (tools/CMakeLists.txt builds it in with the Vulkan backend)
TOP_FILES = ["CMakeLists.txt", "LICENSE", "README.md", "CHANGELOG.md",
             "bench/native/vk_roundtrip.c", "bench/native/vk_roundtrip.h"]
TREES = ["api", "backends", "kernels", "cmake", "tools", "python"]
LEFT_OUT = ("python/tests/", "python/bench/")  # not needed to build or run


def files():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", *TOP_FILES, *TREES],
                         check=True, capture_output=True).stdout.decode()
    return [f for f in out.split("\0") if f and not f.startswith(LEFT_OUT)]


def pyproject():
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    replacements = [('cmake.source-dir = ".."', 'cmake.source-dir = "."'),
                    ('wheel.packages = ["anygpu"]', 'wheel.packages = ["python/anygpu"]'),
                    ('readme = "README.md"', 'readme = "python/README.md"')]
    for old, new in replacements:
        if old not in text:
            sys.exit(f"make_sdist: python/pyproject.toml has no '{old}'")
        text = text.replace(old, new)
    return text


def main(outdir):
    outdir = os.path.abspath(outdir)
    with tempfile.TemporaryDirectory() as tmp:
        stage = os.path.join(tmp, "anygpu")
        for name in files():
            dst = os.path.join(stage, name)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, name), dst)
        with open(os.path.join(stage, "pyproject.toml"), "w", encoding="utf-8") as f:
            f.write(pyproject())
        subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", outdir, stage],
                       check=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "dist"))
