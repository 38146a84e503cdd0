# SPDX-License-Identifier: Apache-2.0
"""What the Python tests of the anygpu command share: a case that collects
its failed checks, and the runner that prints one line per case and the
closing "N passed, N failed, N skipped" line."""
import subprocess


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
