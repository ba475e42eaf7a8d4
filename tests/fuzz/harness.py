"""What every fuzzed input must give: an exit code of the contract and located one-line errors.

``run_cli`` runs one command in this process and returns (exit code,
stdout, stderr); ``check_contract`` fails on an internal error, a traceback,
an exit code outside the contract, or an error line that names no file.
"""

from __future__ import annotations

import os
import re

from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, settings

from policycheck.cli import cli

#: ``file: message``, ``file:line:col: message`` or ``error: file...: message``.
LOCATED = re.compile(r"^(error: )?(?P<file>[^\s:][^:]*?)(:\d+:\d+)?: \S")
#: Lines that are summaries, not errors.
SUMMARY = re.compile(r"^\d+ problem\(s\) found$")


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {type(result.exception).__name__}: {result.exception}") from result.exception
    return result.exit_code, result.stdout, result.stderr


def check_contract(code: int, stderr: str, files: tuple[str, ...], allowed=(0, 1, 2)) -> None:
    """Raise AssertionError when the run broke the exit-code or error-line contract."""
    assert "internal error" not in stderr, stderr
    assert "Traceback" not in stderr, stderr
    assert code in allowed, f"exit {code}: {stderr}"
    if code == 2:
        # "finding: ..." lines report what loading noticed about the data; they are not errors.
        lines = [line for line in stderr.splitlines()
                 if line and not SUMMARY.match(line) and not line.startswith("finding: ")]
        assert lines, "exit 2 without an error line"
        for line in lines:
            match = LOCATED.match(line)
            assert match and any(match.group("file").endswith(f) for f in files), f"unlocated error line: {line!r}"


# Fuzz settings: a few hundred examples by default, thousands with ``-m fuzz``
# (``POLICYCHECK_FUZZ_EXAMPLES=N`` sets how many).
settings.register_profile(
    "policycheck-fuzz",
    deadline=None,
    derandomize=True,  # the default run is reproducible; the fuzz-marked tests explore
    suppress_health_check=list(HealthCheck),
    database=None,
    # Report the failing input as found: shrinking a slow end-to-end example costs minutes.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
settings.load_profile("policycheck-fuzz")
#: Examples per test in the default run.
DEFAULT_EXAMPLES = 150
#: Examples per test under ``-m fuzz``.
FUZZ_EXAMPLES = int(os.environ.get("POLICYCHECK_FUZZ_EXAMPLES", "2000"))


def collector(counts, failures):
    """With ``POLICYCHECK_FUZZ_COLLECT=1`` (the counting runs), record a broken contract and go on.

    Hypothesis stops at the first failure; a run that reports how many of
    10,000 inputs broke the contract must see them all. Without the
    variable a failure fails the test, as usual.
    """
    def collect(fn, *args):
        if not os.environ.get("POLICYCHECK_FUZZ_COLLECT"):
            return fn(*args)
        try:
            fn(*args)
        except AssertionError as exc:
            counts["contract failures"] += 1
            # The input too, so a counted failure can be replayed.
            failures.append({"error": str(exc)[:300], "input": [str(a)[:2000] for a in args[1:]]})

    return collect
