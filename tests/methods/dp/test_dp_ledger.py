"""The privacy-budget ledger file: format, validation and error messages."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from policycheck.methods.dp.ledger import LedgerError, load_ledger

EXAMPLE = Path(__file__).resolve().parents[3] / "policies" / "ledgers" / "adult.ledger.yaml"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "l.ledger.yaml"
    path.write_text(text)
    return path


def test_example_ledger_loads():
    ledger = load_ledger(EXAMPLE)
    assert ledger.ledger_version == 1
    assert ledger.releases and all(r.mechanisms for r in ledger.releases)


def test_ledger_reads_yaml_1_2_floats_and_dates(tmp_path):
    path = _write(
        tmp_path,
        """
ledger_version: 1
releases:
  - id: q3
    released_on: 2025-09-30
    mechanisms:
      - {epsilon: 1e-1}
      - {mechanism: approximate, epsilon: 0.5, delta: 1e-7}
""",
    )
    release = load_ledger(path).releases[0]
    assert release.released_on == dt.date(2025, 9, 30)
    assert release.mechanisms[0].epsilon == 0.1 and release.mechanisms[0].mechanism == "pure"
    assert release.mechanisms[1].delta == 1e-7


def test_missing_ledger_names_the_file(tmp_path):
    with pytest.raises(LedgerError, match=r"nope\.yaml: file not found"):
        load_ledger(tmp_path / "nope.yaml")


def test_bad_yaml_names_the_line(tmp_path):
    path = _write(tmp_path, "ledger_version: 1\nreleases: [\n")
    with pytest.raises(LedgerError, match=r"ledger\.yaml:3:\d+: invalid YAML"):
        load_ledger(path)


def test_invalid_value_names_its_location(tmp_path):
    path = _write(tmp_path, "ledger_version: 1\nreleases:\n  - id: a\n    mechanisms:\n      - {epsilon: -2}\n")
    with pytest.raises(LedgerError, match=r"releases\.0\.mechanisms\.0\.epsilon: Input should be greater than 0"):
        load_ledger(path)


def test_unknown_key_is_refused(tmp_path):
    path = _write(tmp_path, "ledger_version: 1\nreleases: []\nbudget: 3\n")
    with pytest.raises(LedgerError, match="budget: Extra inputs are not permitted"):
        load_ledger(path)


def test_release_without_mechanisms_is_refused(tmp_path):
    path = _write(tmp_path, "ledger_version: 1\nreleases:\n  - id: a\n    mechanisms: []\n")
    with pytest.raises(LedgerError, match=r"releases\.0\.mechanisms: List should have at least 1 item"):
        load_ledger(path)
