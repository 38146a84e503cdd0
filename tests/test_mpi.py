#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""anygpu list/test --mpi under Open MPI's mpirun (issue 24, docs/cluster.md).

    python3 test_mpi.py PATH/TO/anygpu

Four ranks on this machine (--oversubscribe); one of them, rank 2, gets a
planted fault: its OCL_ICD_VENDORS points at an empty folder, so it sees no
OpenCL device. Rank 0's combined report must hold every rank's devices and
name rank 2 as the odd one. Skipped (exit 77) when mpirun or Open MPI's
libmpi is missing: apt-get install openmpi-bin libopenmpi-dev.
"""

import json
import os
import shutil
import subprocess
import sys

from cli_harness import CaseSkipped, CommandFixture, main_with_fixture

RANKS = 4
ODD_RANK = 2
TIMEOUT_S = 240
# Open MPI's own variables would make a nested mpirun join the outer job.
LAUNCHER_PREFIXES = ("OMPI_", "PMIX_", "PMI_", "SLURM_", "MPI_LOCALRANKID", "PRTE_")


class MpiFixture(CommandFixture):
    def __init__(self, binary):
        super().__init__(binary, "anygpu-mpi-test-")
        self.env = {k: v for k, v in self.env.items() if not k.startswith(LAUNCHER_PREFIXES)}
        self.env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"  # containers: no CMA
        # Under AddressSanitizer (.ci/run): Open MPI keeps what MPI_Init
        # allocates, and its libraries have no frame pointers, so only the slow
        # unwinder reaches a frame that tests/lsan-mpi.supp can match; that
        # unwinder makes lavapipe's kernel builds take minutes. So the ranks
        # run without leak checks, but test_rank_code_does_not_leak (list: no
        # kernel builds) runs with them; the commands' own leaks are checked by
        # the other CLI tests (under --mpi they run in a child that _exits).
        self.asan = self.env.get("ASAN_OPTIONS")
        if self.asan is not None:
            self.env["ASAN_OPTIONS"] = self.asan + ":detect_leaks=0"
        self.empty = os.path.join(self.work, "no-icds")
        os.mkdir(self.empty)
        self.mpirun = shutil.which("mpirun")

    def require_mpi(self):
        if not self.mpirun:
            raise CaseSkipped("mpirun not found (apt-get install openmpi-bin libopenmpi-dev)")
        code, _, err = self.run("list", "--mpi", "--json")
        if code != 0 and "--mpi needs an MPI library" in err:
            raise CaseSkipped("Open MPI's libmpi not found (apt-get install libopenmpi-dev)")

    def mpirun_command(self, *args, ranks=RANKS, fault=True):
        """(exit status, stdout, stderr) of `mpirun -n ranks anygpu ARGS`,
        rank ODD_RANK with OCL_ICD_VENDORS at an empty folder when `fault` is
        True; `fault` may instead be (rank, variable, value)."""
        if fault is True:
            fault = (ODD_RANK, "OCL_ICD_VENDORS", self.empty)
        rank, variable, value = fault or (-1, "UNUSED", "")
        script = ('if [ "$OMPI_COMM_WORLD_RANK" = "%d" ]; then export %s="%s"; fi; '
                  'exec "$0" "$@"' % (rank, variable, value))
        command = [self.mpirun, "--allow-run-as-root", "--oversubscribe", "-n", str(ranks),
                   "sh", "-c", script, self.binary, *args]
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=self.env, timeout=TIMEOUT_S)
        return (result.returncode, result.stdout.decode("utf-8", "replace"),
                result.stderr.decode("utf-8", "replace"))

    def combined(self, case, *args, fault=True):
        code, out, err = self.mpirun_command(*args, fault=fault)
        try:
            report = json.loads(out)
        except json.JSONDecodeError as error:
            case.require(False, f"mpirun anygpu {' '.join(args)}: not JSON ({error}): "
                         f"{out[:300]!r} {err[-800:]!r}")
        return code, report


def selectors(rank_entry):
    return [d["selector"] for d in (rank_entry.get("hardware") or {}).get("devices", [])]


def check_common(case, report, command):
    case.check(report.get("command") == command, f"command is {report.get('command')!r}")
    case.check(report.get("rank_count") == RANKS, f"rank_count {report.get('rank_count')}")
    ranks = report.get("ranks", [])
    case.require(len(ranks) == RANKS, f"{len(ranks)} rank entries, expected {RANKS}")
    case.check([r["rank"] for r in ranks] == list(range(RANKS)), "ranks out of order")
    hosts = report.get("hosts", [])
    case.check(len(hosts) == 1 and hosts[0]["ranks"] == list(range(RANKS)),
               f"hosts: {[(h.get('host'), h.get('ranks')) for h in hosts]}")
    for entry in ranks:
        case.check(entry["local"]["local_rank"] == entry["rank"]
                   and entry["local"]["variable"] == "OMPI_COMM_WORLD_LOCAL_RANK",
                   f"rank {entry['rank']}: local {entry['local']!r}")
        case.check(entry["gathered_bytes"] > 0, f"rank {entry['rank']}: nothing gathered")
        case.check(isinstance(entry.get("report"), dict),
                   f"rank {entry['rank']}: no report of its own ({entry.get('stderr')!r})")
        case.check("cpu:0" in selectors(entry), f"rank {entry['rank']}: no cpu:0")
    return ranks


def check_odd_rank_named(case, report, code, ranks):
    summary = report["summary"]
    case.check(code == 1, f"mpirun exited {code}, not 1, although a rank disagrees")
    case.check(summary["agree"] is False, "summary says the ranks agree")
    case.check([o["rank"] for o in summary["odd_ranks"]] == [ODD_RANK],
               f"odd ranks {summary['odd_ranks']!r}, expected [{ODD_RANK}]")
    case.check(summary["majority_count"] == RANKS - 1, f"majority {summary['majority_count']}")
    case.check(summary["odd_hosts"] == [ranks[0]["host"]], f"odd hosts {summary['odd_hosts']}")
    case.check("opencl" in summary["odd_ranks"][0]["fingerprint"].split("no devices from")[-1],
               f"the odd rank's fingerprint does not name opencl: {summary['odd_ranks']!r}")
    case.check(report["hosts"][0]["differs_within_host"] == [ODD_RANK],
               f"differs_within_host {report['hosts'][0]['differs_within_host']}")


def test_list_names_the_odd_rank(fixture, case, options):
    fixture.require_mpi()
    code, report = fixture.combined(case, "list", "--json", "--mpi")
    ranks = check_common(case, report, "list")
    for entry in ranks:
        has_opencl = any(s.startswith("opencl:") for s in selectors(entry))
        listed = [d["selector"] for d in entry["report"]["devices"]]
        case.check(listed == selectors(entry),
                   f"rank {entry['rank']}: its list {listed} differs from {selectors(entry)}")
        if entry["rank"] == ODD_RANK:
            case.check(not has_opencl, "the rank without ICDs lists an OpenCL device")
    if not any(s.startswith("opencl:") for s in selectors(ranks[0])):
        raise CaseSkipped("no OpenCL device here (pocl-opencl-icd): nothing to plant")
    check_odd_rank_named(case, report, code, ranks)
    host = report["hosts"][0]
    case.check(host["hardware"]["devices"] == ranks[0]["hardware"]["devices"]
               and host["hardware"]["physical"], "host entry lacks devices or physical devices")
    case.check(host["failures"] == [], f"failures {host['failures']!r}")


def test_test_runs_each_ranks_device(fixture, case, options):
    fixture.require_mpi()
    code, report = fixture.combined(case, "test", "--json", "--mpi", "--device", "*:*@local",
                                    "--kernel", "copy.f32", "--size", "small")
    ranks = check_common(case, report, "test")
    for entry in ranks:
        tested = [d["device"] for d in entry["report"]["devices"]]
        # What "*:*@local" gives this rank, asked outside MPI with its variables.
        env = dict(fixture.env, OMPI_COMM_WORLD_LOCAL_RANK=str(entry["rank"]))
        if entry["rank"] == ODD_RANK:
            env["OCL_ICD_VENDORS"] = fixture.empty
        result = subprocess.run([fixture.binary, "info", "*:*@local", "--json"],
                                stdout=subprocess.PIPE, env=env, timeout=TIMEOUT_S)
        expected = json.loads(result.stdout)["selector"]
        case.check(tested == [expected], f"rank {entry['rank']} tested {tested}, not {expected}")
        case.check(entry["report"]["failed"] == 0, f"rank {entry['rank']}: {entry['work']}")
        case.check(entry["work"].startswith(f"on {expected}; 1 passed"),
                   f"rank {entry['rank']}: work {entry['work']!r}")
    tested = [r["report"]["devices"][0]["device"] for r in ranks if r["report"]["devices"]]
    case.check(tested[0] != tested[1], f"ranks 0 and 1 tested the same device: {tested}")
    if any(s.startswith("opencl:") for s in selectors(ranks[0])):
        check_odd_rank_named(case, report, code, ranks)


def test_bench_reports_every_rank(fixture, case, options):
    fixture.require_mpi()
    code, report = fixture.combined(case, "bench", "--json", "--mpi", "--quick", "--no-native",
                                    "--bench", "triad", "-d", "*:*@local", fault=False)
    ranks = check_common(case, report, "bench")
    case.check(code == 0, f"bench --mpi exited {code}: {[r['stderr'] for r in ranks]}")
    for entry in ranks:
        case.check(entry["report"].get("results") and entry["work"].startswith("on "),
                   f"rank {entry['rank']}: no results, work {entry['work']!r}")


def test_agreeing_ranks_exit_zero(fixture, case, options):
    fixture.require_mpi()
    code, report = fixture.combined(case, "list", "--json", "--mpi", fault=False)
    check_common(case, report, "list")
    case.check(code == 0, f"mpirun exited {code} with every rank agreeing")
    case.check(report["summary"]["agree"] and not report["summary"]["odd_ranks"],
               f"summary {report['summary']!r}")


def test_missing_vulkan_driver_file_is_named(fixture, case, options):
    """The issue's other fault: a rank whose VK_DRIVER_FILES names a missing
    file sees no Vulkan device."""
    fixture.require_mpi()
    missing = os.path.join(fixture.work, "missing_icd.json")
    code, report = fixture.combined(case, "list", "--json", "--mpi",
                                    fault=(1, "VK_DRIVER_FILES", missing))
    ranks = check_common(case, report, "list")
    if not any(s.startswith("vulkan:") for s in selectors(ranks[0])):
        raise CaseSkipped("no Vulkan device here (mesa-vulkan-drivers): nothing to plant")
    odd = report["summary"]["odd_ranks"]
    case.check(code == 1 and [o["rank"] for o in odd] == [1], f"exit {code}, odd ranks {odd!r}")
    case.check(odd and "vulkan" in odd[0]["fingerprint"].split("no devices from")[-1],
               f"the odd rank's fingerprint does not name vulkan: {odd!r}")
    case.check(not any(s.startswith("vulkan:") for s in selectors(ranks[1])),
               f"rank 1 still lists {selectors(ranks[1])}")


def test_rank_code_does_not_leak(fixture, case, options):
    """Under ASan: the rank's record, the gather and the report, with leak
    checks (Open MPI's own allocations suppressed); a plain run otherwise."""
    fixture.require_mpi()
    saved = fixture.env.get("ASAN_OPTIONS")
    if fixture.asan is not None:
        fixture.env["ASAN_OPTIONS"] = fixture.asan + ":detect_leaks=1:fast_unwind_on_malloc=0"
    try:
        code, out, err = fixture.mpirun_command("list", "--json", "--mpi", fault=False)
    finally:
        if saved is not None:
            fixture.env["ASAN_OPTIONS"] = saved
    case.check(code == 0 and "LeakSanitizer" not in err, f"exit {code}: {err[-2000:]!r}")
    case.check(json.loads(out)["rank_count"] == RANKS, "not every rank reported")


def test_text_report_names_the_odd_rank(fixture, case, options):
    fixture.require_mpi()
    code, out, err = fixture.mpirun_command("list", "--mpi")
    case.check(out.startswith(f"anygpu list on {RANKS} ranks, 1 host"), f"text: {out[:200]!r}")
    if "opencl:0" in out:
        case.check(f"odd: rank {ODD_RANK} on " in out, f"text does not name the odd rank: {out!r}")
        case.check(f"{RANKS - 1} of {RANKS} ranks agree" in out, f"text: {out!r}")


def test_without_mpi_says_how_to_get_it(fixture, case, options):
    env = dict(fixture.env, ANYGPU_MPI_LIBRARY=os.path.join(fixture.work, "libmpi.so.40"))
    result = subprocess.run([fixture.binary, "list", "--mpi"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, timeout=TIMEOUT_S)
    err = result.stderr.decode()
    case.check(result.returncode == 1, f"exit {result.returncode}")
    case.check(result.stdout == b"", "wrote to stdout")
    case.check("apt-get install openmpi-bin libopenmpi-dev" in err and err.count("\n") == 1,
               f"stderr {err!r}")
    code, _, err = fixture.run("info", "--mpi")
    case.check(code == 2 and "--mpi is for list, test and bench" in err, f"info --mpi: {err!r}")


CASES = [
    test_without_mpi_says_how_to_get_it,
    test_list_names_the_odd_rank,
    test_test_runs_each_ranks_device,
    test_bench_reports_every_rank,
    test_agreeing_ranks_exit_zero,
    test_missing_vulkan_driver_file_is_named,
    test_rank_code_does_not_leak,
    test_text_report_names_the_odd_rank,
]

if __name__ == "__main__":
    sys.exit(main_with_fixture(CASES, "usage: test_mpi.py PATH/TO/anygpu", MpiFixture))
