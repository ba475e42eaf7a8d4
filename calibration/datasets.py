"""The real datasets the calibration suite releases, with an id (and a date) column added.

Adult is the package's demo extract (policycheck/demo_data, 1994 CPS); RAND HIE and the 1996
American National Election Study extract (ANES, a coarse small sample: 472 + 472 respondents,
nine mostly categorical columns, issue 28) are shipped in calibration/data (see its README).
Each gets a record id (six unique digits, as a registry number would be) and Adult and RAND
HIE a date (interview or enrolment day, uniform over a year), drawn once with a fixed seed:
they are part of the data, not of a calibration seed. The adversarial release "a full copy
with the id regenerated" needs the id (issue 11). ANES gets no date: a day of the year would
make its coarse records nearly unique, and coarse records are what it is in the suite for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
ADULT = REPO / "policycheck" / "demo_data"
RANDHIE = Path(__file__).parent / "data"
DATA = RANDHIE  # every dataset shipped with the suite (calibration/data/README.md)
POLICIES = REPO / "policies"
EPOCH = pd.Timestamp("1970-01-01")


@dataclass(frozen=True)
class CalibrationData:
    """Training and holdout records of one dataset, as a release's original and holdout."""

    name: str
    training: pd.DataFrame  # id column, analysed columns, date column (ISO strings)
    holdout: pd.DataFrame
    id_column: str
    date_column: str | None  # None: the dataset has no date column
    categorical: tuple[str, ...]
    integer: tuple[str, ...]  # numeric columns whose values are whole numbers
    policy: Path  # rules for every release (calibration.run adds the DP-claim rule where a release declares one)

    @property
    def analysed(self) -> list[str]:
        """The columns a synthesizer models: everything but the id (the date included)."""
        return [c for c in self.training.columns if c != self.id_column]

    @property
    def numeric(self) -> list[str]:
        return [c for c in self.analysed if c not in self.categorical and c != self.date_column]


def _with_id_and_date(
    training: pd.DataFrame, holdout: pd.DataFrame, id_column: str, date_column: str | None, year: int, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = len(training) + len(holdout)
    ids = rng.choice(np.arange(100_000, 1_000_000), size=n, replace=False)
    start = pd.Timestamp(f"{year}-01-01")
    days = rng.integers(0, 365, size=n)
    dates = (start + pd.to_timedelta(days, unit="D")).strftime("%Y-%m-%d").to_numpy()
    out = []
    for part, frame in ((slice(0, len(training)), training), (slice(len(training), n), holdout)):
        frame = frame.reset_index(drop=True)
        frame.insert(0, id_column, ids[part])
        if date_column is not None:
            frame[date_column] = dates[part]
        out.append(frame)
    return out[0], out[1]


def _read(path: Path, columns: list[str], n: int) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""])[columns].head(n)


ADULT_COLUMNS = ["age", "workclass", "education", "marital_status", "race", "sex", "hours_per_week", "income"]
RANDHIE_COLUMNS = ["mdvis", "coinsurance", "deductible", "lpi", "fmde", "physlm", "disea", "health"]


def adult(n: int) -> CalibrationData:
    """The first ``n`` rows of the demo's Adult training and holdout files, eight columns."""
    training, holdout = _with_id_and_date(
        _read(ADULT / "adult_training.csv", ADULT_COLUMNS, n),
        _read(ADULT / "adult_holdout.csv", ADULT_COLUMNS, n),
        "person_id",
        "interview_date",
        1994,
        seed=1994,
    )
    return CalibrationData(
        "adult",
        training,
        holdout,
        "person_id",
        "interview_date",
        categorical=("workclass", "education", "marital_status", "race", "sex", "income"),
        integer=("age", "hours_per_week"),
        policy=POLICIES / "calibration-adult.policy.yaml",
    )


def randhie(n: int) -> CalibrationData:
    """The first ``n`` persons of the shipped RAND HIE training and holdout files."""
    training, holdout = _with_id_and_date(
        _read(RANDHIE / "randhie_training.csv", RANDHIE_COLUMNS, n),
        _read(RANDHIE / "randhie_holdout.csv", RANDHIE_COLUMNS, n),
        "person_id",
        "enrolment_date",
        1975,
        seed=1975,
    )
    return CalibrationData(
        "randhie",
        training,
        holdout,
        "person_id",
        "enrolment_date",
        categorical=("coinsurance", "deductible", "health"),
        integer=("mdvis",),
        policy=POLICIES / "calibration-randhie.policy.yaml",
    )


def anes96(n: int) -> CalibrationData:
    """The first ``n`` (at most 472) respondents of the shipped ANES 1996 training and holdout files."""
    training, holdout = _with_id_and_date(
        _read(DATA / "anes96_training.csv", ANES96_COLUMNS, n),
        _read(DATA / "anes96_holdout.csv", ANES96_COLUMNS, n),
        "respondent_id",
        None,
        1996,
        seed=1996,
    )
    return CalibrationData(
        "anes96",
        training,
        holdout,
        "respondent_id",
        None,
        categorical=("PID", "educ", "income", "selfLR", "ClinLR", "DoleLR", "vote"),
        integer=("age", "TVnews"),
        policy=POLICIES / "calibration-anes96.policy.yaml",
    )


ANES96_COLUMNS = ["age", "TVnews", "PID", "educ", "income", "selfLR", "ClinLR", "DoleLR", "vote"]

DATASETS = {"adult": adult, "randhie": randhie, "anes96": anes96}


def to_days(dates: pd.Series) -> pd.Series:
    """ISO dates as whole days since 1970-01-01 (what synthesizers model)."""
    return (pd.to_datetime(dates) - EPOCH).dt.days


def from_days(days: pd.Series) -> pd.Series:
    """Days since 1970-01-01 (rounded) back to ISO dates; missing stays missing."""
    whole = pd.to_numeric(days).round()
    present = whole.notna()
    out = pd.Series([None] * len(days), index=days.index, dtype=object)
    # Only the present days are converted: pandas 2.3.3's to_timedelta of an all-missing column (every
    # date of pac-synth's Adult releases is empty) now and then warned of an overflow, run to run.
    out[present] = (EPOCH + pd.to_timedelta(whole[present], unit="D")).dt.strftime("%Y-%m-%d")
    return out
