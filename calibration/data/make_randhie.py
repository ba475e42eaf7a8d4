"""Regenerate randhie_training.csv and randhie_holdout.csv from statsmodels' copy of the RAND HIE data.

    pip install statsmodels && python -m calibration.data.make_randhie

The source rows are person-years and carry no person id. Each person's plan and baseline
health measures (lncoins, idp, lpi, fmde, physlm, disea, self-rated health) are constant
over the years, so a run of consecutive rows with identical values of those columns is
taken as one person, and only that person's first year is kept: the result has one row
per person, as membership inference assumes (a person's second year in the holdout
would be a near-copy of a training record). 2,000 + 2,000 persons are then drawn without
replacement (seed 20261123), original order kept.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
PERSON_COLUMNS = ["lncoins", "idp", "lpi", "fmde", "physlm", "disea", "hlthg", "hlthf", "hlthp"]
N_EACH = 2000
SEED = 20261123


def main() -> None:
    from statsmodels.datasets import randhie

    years = randhie.load_pandas().data
    first_year = (years[PERSON_COLUMNS] != years[PERSON_COLUMNS].shift()).any(axis=1)
    people = years[first_year].reset_index(drop=True)
    out = people.assign(
        # Coinsurance rate in percent: lncoins = ln(rate + 1), five plans.
        coinsurance=np.rint(np.expm1(people["lncoins"])).astype(int).astype(str) + "%",
        deductible=np.where(people["idp"] == 1, "individual", "none"),
        lpi=people["lpi"].round(4),
        fmde=people["fmde"].round(4),
        physlm=people["physlm"].round(4),
        disea=people["disea"].round(4),
        health=np.select(
            [people["hlthp"] == 1, people["hlthf"] == 1, people["hlthg"] == 1], ["poor", "fair", "good"], "excellent"
        ),
    )[["mdvis", "coinsurance", "deductible", "lpi", "fmde", "physlm", "disea", "health"]]
    rng = np.random.default_rng(SEED)
    chosen = rng.choice(len(out), size=2 * N_EACH, replace=False)
    training, holdout = np.sort(chosen[:N_EACH]), np.sort(chosen[N_EACH:])
    out.iloc[training].to_csv(HERE / "randhie_training.csv", index=False)
    out.iloc[holdout].to_csv(HERE / "randhie_holdout.csv", index=False)
    print(f"{len(years)} person-years -> {len(out)} persons -> {N_EACH} training + {N_EACH} holdout")


if __name__ == "__main__":
    main()
