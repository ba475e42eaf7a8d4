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


# ---------------------------------------------------------------- the ledger against a release (check_ledger)


def _release(*infos, sha256: str | None = None, rid: str = "r"):
    import pandas as pd

    from policycheck.release.model import ColumnType, Dataset, Release

    frame = pd.DataFrame({"x": [1.0, 2.0]})
    return Release(
        id=rid,
        original=Dataset("original", "training", frame, sha256=sha256),
        synthetic=tuple(Dataset("synthetic", f"s{i}", frame, synthesizer=s) for i, s in enumerate(infos)),
        holdout=None,
        column_types={"x": ColumnType.NUMERIC},
    )


class _Accounting:
    def __init__(self, accountant: str, delta: float = 1e-5) -> None:
        self.accountant, self.delta = accountant, delta


ZCDP_LEDGER = "ledger_version: 1\nreleases:\n  - id: old\n    mechanisms:\n      - {mechanism: zcdp, rho: 0.1}\n"


def test_a_ledger_of_another_original_is_refused(tmp_path):
    from policycheck.methods.dp.ledger import check_ledger

    path = _write(tmp_path, 'ledger_version: 1\noriginal:\n  sha256: "' + "ab" * 32 + '"\nreleases: []\n')
    problems = check_ledger(_Accounting("best"), load_ledger(path), path, _release(sha256="cd" * 32))
    assert problems == [
        (
            ("ledger",),
            f"ledger {path}: lists releases of an original with sha256 {'ab' * 32}, "
            f"but this release's original has sha256 {'cd' * 32}",
        )
    ]


def test_an_accountant_the_ledgers_mechanisms_rule_out_is_refused_naming_the_others(tmp_path):
    from policycheck.methods.dp.ledger import check_ledger
    from policycheck.release.model import SynthesizerInfo

    path = _write(tmp_path, ZCDP_LEDGER)
    release = _release(SynthesizerInfo("a", epsilon=1.0, delta=1e-6))
    ((where, message),) = check_ledger(_Accounting("pld"), load_ledger(path), path, release)
    assert where == ("accountant",)
    assert message.startswith(f"accountant 'pld' cannot account for the mechanisms ledger {path} records: ")
    assert message.endswith("use one of 'best', 'basic', 'advanced', 'rdp'")


def test_the_ledgers_entry_of_this_release_is_not_judged(tmp_path):
    from policycheck.methods.dp.ledger import check_ledger
    from policycheck.release.model import SynthesizerInfo

    path = _write(tmp_path, ZCDP_LEDGER)
    release = _release(SynthesizerInfo("a", epsilon=1.0, delta=1e-6), rid="old")
    assert check_ledger(_Accounting("pld"), load_ledger(path), path, release) == []


def test_an_accountant_this_releases_own_sets_rule_out_is_left_to_the_rules_check(tmp_path):
    # One mistake, one message: dp_total_epsilon's own check names the release's sets.
    from policycheck.methods.dp.ledger import check_ledger
    from policycheck.release.model import SynthesizerInfo

    path = _write(tmp_path, ZCDP_LEDGER)
    release = _release(SynthesizerInfo("a", params={"mechanism": "zcdp", "rho": 0.1}))
    assert check_ledger(_Accounting("pld"), load_ledger(path), path, release) == []
