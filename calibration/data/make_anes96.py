"""Regenerate anes96_training.csv and anes96_holdout.csv from statsmodels' copy of the 1996 ANES extract.

    pip install statsmodels && python -m calibration.data.make_anes96

The source (statsmodels/datasets/anes96/anes96.csv) has one row per respondent, 944 rows.
Nine of its columns are kept: age and TVnews as numbers, the seven others as the labels
statsmodels documents for their codes, so they read as categories (the calibration's coarse,
mostly categorical case); popul (population of the respondent's place, 99 values) is left
out, and so is statsmodels' derived logpopul. The 944 respondents are split at random into
472 training and 472 holdout records (seed 20261123), original order kept.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
SEED = 20261123
SCALE = [
    "Extremely liberal",
    "Liberal",
    "Slightly liberal",
    "Moderate",
    "Slightly conservative",
    "Conservative",
    "Extremely conservative",
]
LABELS = {
    "PID": [
        "Strong Democrat",
        "Weak Democrat",
        "Independent-Democrat",
        "Independent-Independent",
        "Independent-Republican",
        "Weak Republican",
        "Strong Republican",
    ],
    "educ": [
        "1-8 grades",
        "Some high school",
        "High school graduate",
        "Some college",
        "College degree",
        "Master's degree",
        "PhD",
    ],
    "income": [
        "None or less than $2,999",
        "$3,000-$4,999",
        "$5,000-$6,999",
        "$7,000-$8,999",
        "$9,000-$9,999",
        "$10,000-$10,999",
        "$11,000-$11,999",
        "$12,000-$12,999",
        "$13,000-$13,999",
        "$14,000-$14,999",
        "$15,000-$16,999",
        "$17,000-$19,999",
        "$20,000-$21,999",
        "$22,000-$24,999",
        "$25,000-$29,999",
        "$30,000-$34,999",
        "$35,000-$39,999",
        "$40,000-$44,999",
        "$45,000-$49,999",
        "$50,000-$59,999",
        "$60,000-$74,999",
        "$75,000-$89,999",
        "$90,000-$104,999",
        "$105,000 and over",
    ],
    "vote": ["Clinton", "Dole"],
    "selfLR": SCALE,
    "ClinLR": SCALE,
    "DoleLR": SCALE,
}
#: The codes' first value: PID and vote count from 0, the others from 1.
FIRST = {"PID": 0, "vote": 0}
COLUMNS = ["age", "TVnews", "PID", "educ", "income", "selfLR", "ClinLR", "DoleLR", "vote"]


def main() -> None:
    from statsmodels.datasets import anes96

    source = anes96.load_pandas().data
    out = source[COLUMNS].copy()
    for column in ("age", "TVnews"):
        out[column] = out[column].astype(int)
    for column, labels in LABELS.items():
        codes = out[column].astype(int) - FIRST.get(column, 1)
        out[column] = np.array(labels, dtype=object)[codes]
    chosen = np.random.default_rng(SEED).permutation(len(out))
    half = len(out) // 2
    training, holdout = np.sort(chosen[:half]), np.sort(chosen[half : 2 * half])
    out.iloc[training].to_csv(HERE / "anes96_training.csv", index=False)
    out.iloc[holdout].to_csv(HERE / "anes96_holdout.csv", index=False)
    print(f"{len(source)} respondents -> {half} training + {half} holdout, {len(COLUMNS)} columns")


if __name__ == "__main__":
    main()
