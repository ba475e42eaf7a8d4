"""Issue 11's and 28's calibration targets on the CI sweep (calibration.run.CI: every dataset, Adult, RAND HIE,
the coarse ANES sample and the flchain patients with missing values, the releases with a target, 10 seeds, the
shipped thresholds and decision rule).

Every adversarial release FAILS on every seed, by at least one blocking rule and by each
family that should catch it; the safe releases and the DP releases at epsilon <= 1 have no
blocking FAIL (and no error) on at least 95% of seeds, and no rule FAILs more than 2.5% of
them (issue 28). docs/calibration.md publishes the
same sweep's table (python -m calibration.run).
"""

import pytest

from calibration.releases import BY_NAME
from calibration.run import CI, FALSE_FAIL_SHARE, SAFE_SHARE, blocking_fail, failing_families, safe_rule_rates

pytestmark = pytest.mark.calibration

# The real synthesizers come with the `calibration` extra: pip install -e '.[test,calibration]'.
for _module in ("copulas", "DataSynthesizer", "pacsynth"):
    pytest.importorskip(_module, reason="needs the calibration extra: pip install -e '.[test,calibration]'")

#: Targets the merged code misses, (dataset, release) -> what the CI sweep measured; none today. A seeded
#: release's miss is a strict xfail: a fix makes it pass and the mark must go.
KNOWN_MISSES: dict[tuple[str, str], str] = {}

#: pac-synth takes no seed (its Rust core draws from the operating system), so its releases differ from run
#: to run and a miss could not be strict. Its target (RAND HIE and Adult at epsilon 1) is met without a mark:
#: 0 blocking FAILs in the published sweep and in 20 more RAND HIE releases, now that the DCR share and the
#: linkage rates count clustered records as such (docs/metrics.md); before, dcr-share failed 3 of 40.
UNSEEDABLE: dict[tuple[str, str], str] = {}


@pytest.fixture(scope="module")
def sweep():
    from ci_sweep import ci_results

    return ci_results()


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
SAFE = [_case(d, r) for d in CI.datasets for r in CI.releases if BY_NAME[r].group in ("safe", "dp")]


@pytest.mark.parametrize("dataset, release", ADVERSARIAL)
def test_an_adversarial_release_fails_on_every_seed_in_each_family_that_should_catch_it(sweep, dataset, release):
    for row in _rows(sweep, dataset, release):
        assert blocking_fail(row), f"seed {row['seed']}: no blocking rule fails ({row.get('error') or row['verdict']})"
        missing = set(BY_NAME[release].caught_by) - failing_families(row)
        assert not missing, f"seed {row['seed']}: not caught by {sorted(missing)}"


@pytest.mark.parametrize("dataset, release", SAFE)
def test_a_safe_or_dp_release_has_no_blocking_fail_on_95_percent_of_seeds(sweep, dataset, release):
    rows = _rows(sweep, dataset, release)
    bad = {
        r["seed"]: r.get("error")
        or sorted(k for k, v in r["rules"].items() if v["severity"] == "blocking" and v["verdict"] == "fail")
        for r in rows
        if blocking_fail(r) or r["verdict"] == "error"
    }
    assert len(rows) - len(bad) >= SAFE_SHARE * len(rows), f"blocking FAIL or error on seeds {bad}"


@pytest.mark.parametrize("dataset", CI.datasets)
def test_no_rule_fails_more_than_two_and_a_half_percent_of_the_safe_releases(sweep, dataset):
    rates = safe_rule_rates(sweep, dataset)
    assert rates and all(r["releases"] >= len(CI.seeds) for r in rates.values())
    too_many = {
        rule: f"{r['fail']:.1%} of {r['releases']}" for rule, r in rates.items() if r["fail"] > FALSE_FAIL_SHARE
    }
    assert not too_many, f"false FAIL above {FALSE_FAIL_SHARE:.1%}: {too_many}"
