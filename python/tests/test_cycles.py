# SPDX-License-Identifier: Apache-2.0
"""Resources go back deterministically (release, with, close) and with the GC:
no leak over 100,000 create/release cycles."""
import gc

import numpy as np

import anygpu
from conftest import VADD


def rss_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))


def test_100k_buffer_cycles():
    with anygpu.device("cpu:0") as dev:
        before = rss_kib()
        for i in range(50_000):
            with dev.empty(256, np.float32):
                pass
        for i in range(50_000):
            dev.empty(256, np.float32)  # dropped: the GC releases it
        gc.collect()
        assert dev.memory()["allocated_bytes"] == 0
        assert rss_kib() - before < 16 * 1024
        assert len(dev._children._refs) == 0


def test_program_kernel_queue_event_cycles():
    for sel in [d["selector"] for d in anygpu.devices()]:
        with anygpu.device(sel) as dev:
            prog = dev.program(VADD)
            before = rss_kib()
            for i in range(2_000):
                k = prog.kernel("vadd")
                q = dev.queue()
                e = q.record()
                e.wait()
                del k, q, e
            gc.collect()
            assert rss_kib() - before < 16 * 1024, sel


def test_close_releases_everything():
    dev = anygpu.device("cpu:0")
    objs = [dev.empty(8), dev.program(VADD), dev.queue()]
    objs.append(objs[1].kernel("vadd"))
    dev.close()
    assert all(o.released for o in objs)
