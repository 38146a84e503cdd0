# SPDX-License-Identifier: Apache-2.0
import json
import os
import subprocess
import sys

import pytest

import anygpu
from conftest import SELECTORS


def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "anygpu", *args], capture_output=True,
                          text=True, timeout=300, **kw)


def test_every_device_here():
    # .ci/run names the devices its machine has (PoCL, lavapipe, the CPU backend), so
    # that a backend gone missing fails instead of shrinking the tests.
    expected = os.environ.get("ANYGPU_PYTEST_DEVICES", "cpu:0").split()
    assert set(expected) <= set(SELECTORS), (expected, SELECTORS)


def test_devices_match_list_json():
    listed = json.loads(cli("list", "--json").stdout)["devices"]
    assert anygpu.devices() == listed


def test_device_selector_and_env(monkeypatch):
    assert anygpu.device("cuda:7;cpu:0").selector == "cpu:0"
    monkeypatch.setenv("ANYGPU_DEVICE", SELECTORS[-1])
    assert anygpu.device().selector == SELECTORS[-1]
    assert [d.selector for d in anygpu.select_all("*:*")] != []


def test_selector_not_found(monkeypatch):
    with pytest.raises(anygpu.NotFoundError) as e:
        anygpu.device("cuda:7")
    assert e.value.status_name == "AGPU_ERROR_NOT_FOUND" and "cuda:7" in e.value.message
    monkeypatch.setenv("ANYGPU_DEVICE", "hip:9")
    with pytest.raises(anygpu.NotFoundError, match="ANYGPU_DEVICE"):
        anygpu.device()


def test_bad_selector():
    with pytest.raises(anygpu.AnygpuError):
        anygpu.device("nonsense:::")


@pytest.mark.parametrize("command", [["list"], ["info", "cpu:0"], ["doctor"], ["--help"],
                                     ["bench", "-d", "cpu:0", "--bench", "launch", "--quick"]])
def test_python_m_anygpu(command):
    r = cli(*command)
    assert r.returncode == 0, r.stderr
    assert r.stdout


def test_python_m_anygpu_test_cpu():
    r = cli("test", "--device", "cpu:0", "--size", "small", "--kernel", "add.f32")
    assert r.returncode == 0, r.stdout + r.stderr


def test_device_info_and_memory():
    with anygpu.device("cpu:0") as dev:
        assert dev.info["backend"] == "cpu" and dev.name
        assert dev.memory()["total_bytes"] > 0
    assert dev.closed and "closed" in repr(dev)
