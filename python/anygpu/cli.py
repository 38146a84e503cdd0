# SPDX-License-Identifier: Apache-2.0
"""python -m anygpu list|info|doctor|test|bench|...: the anygpu command shipped in the package."""
import os
import sys

from ._lib import cli_path


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    path = cli_path()
    if not os.access(path, os.X_OK):
        sys.stderr.write(f"anygpu: the command-line tool is missing at {path} "
                         "(reinstall the package)\n")
        return 127
    sys.stdout.flush()
    os.execv(path, [path] + list(argv))
