"""Our CAP disclosure protection and DCR baseline protection equal SDMetrics 0.32's to 1e-9.

SDMetrics itself runs in the peers' environment (see conftest.py) on the
same CSV files: on generated data with missing values, values outside the
real range and a constant column, and on the demo's Adult releases. The DCR
baseline compares on SDMetrics' own random records (seeded), and our
generator reproduces those records from the same seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from peers_env import run_peer  # noqa: F401, F811 - the fixture

from policycheck.interfaces.demo import TRAINING
from policycheck.methods.cap_disclosure import cap_disclosure
from policycheck.methods.dcr_baseline import fit_reference, median_ratio, sdmetrics_dcr, uniform_random_records
from policycheck.methods.synthesizers import BUILTIN

SEED = 5


def read(path):
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def generated(seed: int, n: int, shift: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "income_k": rng.gamma(2.0, 20.0, n) + shift,
            "region": rng.choice(["n", "s", "e", "w"], n),
            "job": rng.choice([f"j{i}" for i in range(6)], n),
            "flag": rng.choice(["y", "n"], n),
            "constant": 7.0,
        }
    )
    frame.loc[rng.random(n) < 0.05, "income_k"] = np.nan
    frame.loc[rng.random(n) < 0.05, "job"] = None
    return frame


def cases(tmp_path):
    # SDMetrics' DCR is a pandas cross join (minutes at 3,000 x 1,000): a 1,500-row slice keeps the test short.
    adult = read(TRAINING).iloc[:1500]
    gen_real = generated(1, 600)
    gen_syn = generated(2, 500, shift=15.0)  # incomes shifted beyond the real range: clipped terms
    gen_syn.loc[:9, "constant"] = 8.0
    out = {
        "generated": (gen_real, gen_syn, ["age", "region", "job"], ["flag"], ["age"]),
        "adult-nonprivate": (
            adult,
            BUILTIN["nonprivate"](adult, 600, np.random.default_rng(1)),
            ["age", "sex", "race", "education"],
            ["income"],
            ["age"],
        ),
        "adult-indhist": (
            adult,
            BUILTIN["indhist"](adult, 600, np.random.default_rng(1)),
            ["age", "sex", "race", "marital_status"],
            ["income", "workclass"],
            ["age"],
        ),
    }
    files = {}
    for key, (real, syn, *_rest) in out.items():
        real_path, syn_path = tmp_path / f"{key}-real.csv", tmp_path / f"{key}-syn.csv"
        real.to_csv(real_path, index=False)
        syn.to_csv(syn_path, index=False)
        files[key] = (str(real_path), str(syn_path))
    return out, files


@pytest.fixture(scope="module")
def parity(run_peer, tmp_path_factory):
    folder = tmp_path_factory.mktemp("sdmetrics")
    frames, files = cases(folder)
    specs = []
    for key, (real, syn, known, sensitive, continuous) in frames.items():
        real_path, syn_path = files[key]
        sdtypes = {c: "numerical" if pd.api.types.is_numeric_dtype(real[c]) else "categorical" for c in real}
        specs.append(
            {
                "tool": "sdmetrics",
                "metric": "disclosure_protection",
                "original": real_path,
                "synthetic": syn_path,
                "params": {"known": known, "sensitive": sensitive, "continuous": continuous},
            }
        )
        specs.append(
            {
                "tool": "sdmetrics",
                "metric": "dcr_baseline_protection",
                "original": real_path,
                "synthetic": syn_path,
                "params": {"sdtypes": sdtypes, "seed": SEED, "write_random": str(folder / f"{key}-random.csv")},
            }
        )
    results = run_peer(specs)
    peer = {key: (results[2 * i], results[2 * i + 1]) for i, key in enumerate(frames)}
    return frames, files, peer, folder


@pytest.mark.parametrize("case", ["generated", "adult-nonprivate", "adult-indhist"])
def test_cap_disclosure_protection_equals_sdmetrics(parity, case):
    frames, files, peer, _ = parity
    _, _, known, sensitive, continuous = frames[case]
    real, syn = (read(p) for p in files[case])
    ours = cap_disclosure(real, syn, known, sensitive, continuous, 10)
    theirs = peer[case][0]
    assert ours.score() == pytest.approx(theirs["score"], abs=1e-9)
    assert ours.cap_protection == pytest.approx(theirs["cap_protection"], abs=1e-9)
    assert ours.baseline_protection == pytest.approx(theirs["baseline_protection"], abs=1e-9)


@pytest.mark.parametrize("case", ["generated", "adult-nonprivate", "adult-indhist"])
def test_dcr_baseline_protection_equals_sdmetrics_on_its_random_records(parity, case):
    frames, files, peer, folder = parity
    real, syn = (read(p) for p in files[case])
    random = read(folder / f"{case}-random.csv")
    columns = list(real.columns)
    numeric = [pd.api.types.is_numeric_dtype(real[c]) for c in columns]
    enc = fit_reference([real, syn, random], real, columns, numeric)
    x_real = enc.encode(real)
    dcr_syn, dcr_rand = (
        sdmetrics_dcr(enc.encode(syn), x_real, enc.kinds),
        sdmetrics_dcr(enc.encode(random), x_real, enc.kinds),
    )
    theirs = peer[case][1]
    assert np.median(dcr_syn) == pytest.approx(theirs["median_synthetic"], abs=1e-9)
    assert np.median(dcr_rand) == pytest.approx(theirs["median_random"], abs=1e-9)
    assert median_ratio(dcr_syn, dcr_rand) == pytest.approx(theirs["score"], abs=1e-9)


@pytest.mark.parametrize("case", ["adult-nonprivate", "generated"])
def test_our_random_records_equal_sdmetrics_from_the_same_seed(parity, case):
    frames, files, _, folder = parity
    real, syn = (read(p) for p in files[case])
    theirs = read(folder / f"{case}-random.csv")
    ours = uniform_random_records(real, len(syn), np.random.default_rng(SEED), np.random.default_rng(0))
    for col in real.columns:
        if real[col].isna().any():
            continue  # SDMetrics draws the missing-value mask from numpy's global generator
        if pd.api.types.is_numeric_dtype(real[col]):
            np.testing.assert_allclose(ours[col].to_numpy(float), theirs[col].to_numpy(float), rtol=0, atol=1e-9)
        else:
            assert ours[col].tolist() == theirs[col].tolist()
