# SPDX-License-Identifier: Apache-2.0
"""The examples of docs/python.md run, in order, as one script."""
import os
import re

from conftest import REPO


def test_docs_python_md_examples(capsys):
    with open(os.path.join(REPO, "docs", "python.md")) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) >= 4
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), namespace)
