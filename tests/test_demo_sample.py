"""The sample reports committed under reports/demo reproduce, number for number, where the tests run.

A library version that changes a number (pandas 3 hashed text differently
from pandas 2, and the DCR reconstruction attack's tie-breaks followed the
hashes) fails here instead of leaving the committed sample wrong for anyone
who installs afresh.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("release", ["nonprivate", "indhist_dp"])
def test_the_committed_sample_report_reproduces_number_for_number(release):
    done = subprocess.run(
        [sys.executable, "-m", "policycheck", "verify", f"reports/demo/{release}/report.json", "--root", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "identical verdicts and numbers" in done.stdout
