# SPDX-License-Identifier: Apache-2.0
"""What the Python tests of the anygpu command share: a case that collects
its failed checks, and the runner that prints one line per case and the
closing "N passed, N failed, N skipped" line."""
import os
import shutil
import subprocess
import sys
import tempfile


class CaseFailed(Exception):
    pass


class CaseSkipped(Exception):
    pass


class Case:
    """Collects the failed checks of one test case."""

    def __init__(self):
        self.failures = []

    def check(self, condition, message):
        if not condition:
            self.failures.append(message)
        return bool(condition)

    def require(self, condition, message):
        """A check the rest of the case depends on."""
        if not condition:
            self.failures.append(message)
            raise CaseFailed()


def run_cases(cases, fixture, options, errors=(OSError, subprocess.TimeoutExpired)):
    """Runs each case as case(fixture, Case(), options). Returns the exit
    status: 1 on a failure, 77 when every case was skipped, else 0."""
    passed = failed = skipped = 0
    for function in cases:
        name = function.__name__
        case = Case()
        try:
            function(fixture, case, options)
        except CaseSkipped as reason:
            print(f"skip {name}: {reason}")
            skipped += 1
            continue
        except CaseFailed:
            pass
        except errors as error:
            case.failures.append(f"{type(error).__name__}: {error}")
        if case.failures:
            failed += 1
            print(f"FAIL {name}")
            for failure in case.failures:
                print(f"  {failure}")
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    if failed:
        return 1
    return 77 if passed == 0 and skipped else 0


class CommandFixture:
    """The anygpu binary, run with ANYGPU_DEVICE and the variables named in
    `drop` removed from the environment, and a scratch folder `work`."""

    def __init__(self, binary, prefix, drop=(), timeout=300):
        self.binary = binary
        dropped = {"ANYGPU_DEVICE", *drop}
        self.env = {k: v for k, v in os.environ.items() if k not in dropped}
        self.work = tempfile.mkdtemp(prefix=prefix)
        self.timeout = timeout

    def run(self, *args, env=None):
        """(exit status, stdout, stderr) of the binary with `args`."""
        result = subprocess.run([self.binary, *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env or self.env,
                                timeout=self.timeout)
        return (result.returncode, result.stdout.decode("utf-8", "replace"),
                result.stderr.decode("utf-8", "replace"))

    def write(self, name, text):
        """A file of the scratch folder holding `text`; its path."""
        path = os.path.join(self.work, name)
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
        return path


def main_with_fixture(cases, usage, make_fixture, errors=(OSError, subprocess.TimeoutExpired)):
    """The main of a test whose one argument is the anygpu binary: the cases
    run on make_fixture(binary), a CommandFixture whose folder goes after."""
    if len(sys.argv) != 2:
        print(usage)
        return 2
    fixture = make_fixture(os.path.abspath(sys.argv[1]))
    try:
        return run_cases(cases, fixture, None, errors)
    finally:
        shutil.rmtree(fixture.work, ignore_errors=True)
