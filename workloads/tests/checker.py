"""The host unit tests' one way to count checks and report failures."""
import sys


class Checker:
    """check(cond, what) counts a check and keeps what failed; done() prints
    the failures on stderr and exits 1, or the count of checks passed."""

    def __init__(self, name):
        self.name, self.count, self.failures = name, 0, []

    def __call__(self, cond, what):
        self.count += 1
        if not cond:
            self.failures.append(what)

    def done(self):
        for f in self.failures:
            print(f"{self.name}: FAIL: {f}", file=sys.stderr)
        if self.failures:
            sys.exit(1)
        print(f"{self.name}: {self.count} checks passed")
