"""Issue 11's calibration targets on the CI sweep (calibration.run.CI: both datasets, the releases with a target, 10 seeds).

Every adversarial release FAILS on every seed, by at least one blocking rule and by each
family that should catch it; the safe releases and the DP releases at epsilon <= 1 have no
blocking FAIL (and no error) on at least 95% of seeds. docs/calibration.md publishes the
same sweep's table (python -m calibration.run).
"""

import pytest

from calibration.releases import BY_NAME
from calibration.run import CI, SAFE_SHARE, blocking_fail, failing_families, run_sweep

pytestmark = pytest.mark.calibration

# The real synthesizers come with the `calibration` extra: pip install -e '.[test,calibration]'.
for _module in ("copulas", "DataSynthesizer", "pacsynth"):
    pytest.importorskip(_module, reason="needs the calibration extra: pip install -e '.[test,calibration]'")

#: Targets the merged code misses, each with what the CI sweep measured. Both releases are functions of
#: the seed, so these are strict: a fix makes them pass and the mark must go.
KNOWN_MISSES: dict[tuple[str, str], str] = {
    ("adult", "bootstrap"): (
        "linkage (age-narrowing, compare: lower) fails 7 of 10 seeds, is inconclusive on 2 and passes seed 9 "
        "(excess 0.014 = raw 0.028 - holdout 0.014, below 0.02). Over the 10 bootstraps the raw narrowing rate "
        "runs from 0.028 to 0.117 against a holdout baseline of 0.007-0.016: which records a bootstrap draws "
        "decides how many ages six coarse quasi-identifiers pin down (membership, reconstruction and dp fail "
        "every seed)"
    ),
}

#: pac-synth takes no seed (its Rust core draws from the operating system), so its releases differ from run
#: to run and a miss cannot be strict. On RAND HIE at epsilon 1 its DCR share averaged 0.54 over 40 releases
#: (0.37-0.78): the blocking dcr-share rule (fail above 0.55 where the lower bound shows it) failed 3 of the 40,
#: 2 of them in the published sweep; epsilon 1 allows a membership test an accuracy up to e / (1 + e) = 0.73.
UNSEEDABLE: dict[tuple[str, str], str] = {
    ("randhie", "pacsynth-eps1"): "pac-synth cannot be seeded; its DCR share on RAND HIE is 0.54 on average and "
                                  "above 0.55 on some releases; the rule fails 3 in 40, where a release shows it",
}


@pytest.fixture(scope="module")
def sweep():
    return run_sweep(CI, workers=2, log=lambda message: None)


def _rows(sweep, dataset, release):
    rows = [r for r in sweep if r["dataset"] == dataset and r["release"] == release]
    assert len(rows) == len(CI.seeds)
    return rows


def _case(dataset, release):
    marks = []
    if (dataset, release) in KNOWN_MISSES:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[dataset, release])]
    elif (dataset, release) in UNSEEDABLE:
        marks = [pytest.mark.xfail(strict=False, reason=UNSEEDABLE[dataset, release])]
    return pytest.param(dataset, release, marks=marks, id=f"{dataset}-{release}")


ADVERSARIAL = [_case(d, r) for d in CI.datasets for r in CI.releases if BY_NAME[r].group == "adversarial"]
SAFE = [_case(d, r) for d in CI.datasets for r in CI.releases if BY_NAME[r].group != "adversarial"]


@pytest.mark.parametrize("dataset, release", ADVERSARIAL)
def test_an_adversarial_release_fails_on_every_seed_in_each_family_that_should_catch_it(sweep, dataset, release):
    for row in _rows(sweep, dataset, release):
        assert blocking_fail(row), f"seed {row['seed']}: no blocking rule fails ({row.get('error') or row['verdict']})"
        missing = set(BY_NAME[release].caught_by) - failing_families(row)
        assert not missing, f"seed {row['seed']}: not caught by {sorted(missing)}"


@pytest.mark.parametrize("dataset, release", SAFE)
def test_a_safe_or_dp_release_has_no_blocking_fail_on_95_percent_of_seeds(sweep, dataset, release):
    rows = _rows(sweep, dataset, release)
    bad = {r["seed"]: r.get("error") or sorted(k for k, v in r["rules"].items()
                                                if v["severity"] == "blocking" and v["verdict"] == "fail")
           for r in rows if blocking_fail(r) or r["verdict"] == "error"}
    assert len(rows) - len(bad) >= SAFE_SHARE * len(rows), f"blocking FAIL or error on seeds {bad}"
