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

#: Targets today's code misses, each with the exact reason (measured: docs/calibration.md).
CHANCE_NARROWING = (
    "visits-narrowing (linkage_range_narrowing, fail above 0.02) compares the raw narrowing rate, chance "
    "included: mdvis is a small integer (22% zeros, 19% ones, range 69), a 2% range is one value, and independent "
    "marginals already narrow about 0.11 of records, i.e. sum p^2 of the visit counts (issue 11 item 3; the "
    "baselines branch bounds the excess over chance by default)"
)
KNOWN_MISSES: dict[tuple[str, str], str] = {
    ("randhie", name): CHANCE_NARROWING
    for name in ("indhist", "copula", "privbayes-eps0.1", "privbayes-eps1", "pacsynth-eps1")
}


@pytest.fixture(scope="module")
def sweep():
    return run_sweep(CI, workers=2, log=lambda message: None)


def _rows(sweep, dataset, release):
    rows = [r for r in sweep if r["dataset"] == dataset and r["release"] == release]
    assert len(rows) == len(CI.seeds)
    return rows


#: pac-synth takes no seed, so its releases differ between runs and a miss cannot be strict.
FLAKY_MISSES: dict[tuple[str, str], str] = {
    ("adult", "pacsynth-eps1"): (
        "age-narrowing (linkage_range_narrowing, raw rate, chance not subtracted: issue 11 item 3) failed 1 of 10 "
        "seeds in the published sweep (docs/calibration.md); pac-synth cannot be seeded, so a rerun may pass"
    ),
}


def _case(dataset, release):
    reason = KNOWN_MISSES.get((dataset, release))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    if (dataset, release) in FLAKY_MISSES:
        marks = [pytest.mark.xfail(strict=False, reason=FLAKY_MISSES[dataset, release])]
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
