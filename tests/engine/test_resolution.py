"""Levels a release's sample cannot resolve, said before computing (issue 28): each metric's width at
no leak against a hand computation, and what validate -r and plan -r print."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from policycheck.interfaces.cli import cli
from policycheck.metrics import registry
from policycheck.metrics.base import Resolution
from policycheck.release.model import ColumnType, Dataset, Release


def release_of(original, holdout, *synthetic):
    frames = {"original": original, "holdout": holdout}
    types = dict.fromkeys(original.columns, ColumnType.CATEGORICAL)
    return Release(
        "r",
        Dataset("original", "original", frames["original"]),
        tuple(Dataset("synthetic", f"synthetic[{i}]", s) for i, s in enumerate(synthetic)),
        Dataset("holdout", "holdout", frames["holdout"]),
        types,
    )


def hook(metric, **params):
    spec = registry.get_metric(metric)
    return spec.resolution, spec.params.model_validate(params)


def sized(n):
    return pd.DataFrame({"x": [str(i) for i in range(n)]})


def test_dcr_share_width_is_clopper_pearson_at_one_half():
    # Clopper-Pearson upper end of 500/1000 at 95%: Beta(0.975; 501, 500) = 0.531451, so 0.031451 from 0.5
    # (Wilson's score interval gives 0.030930: the exact interval is a little wider).
    resolve, params = hook("dcr_share")
    r = resolve(params, release_of(sized(1000), sized(1000), sized(1000)))
    assert (r.no_leak, r.records, r.width_is) == (0.5, 1000, "at least")
    assert r.half_width == pytest.approx(0.031451, abs=1e-6)


def test_dcr_share_width_over_two_sets_is_at_the_bonferroni_level():
    # Two sets: each interval at 97.5%: Beta(0.9875; 501, 500) - 0.5 = 0.035885; the smaller set counts.
    resolve, params = hook("dcr_share")
    r = resolve(params, release_of(sized(1000), sized(1000), sized(1000), sized(4000)))
    assert (r.records, r.confidence) == (1000, 0.975)
    assert r.half_width == pytest.approx(0.035885, abs=1e-6)


def test_mi_risk_width_is_the_hypergeometric_spread_of_the_precisions():
    # One threshold at the median of 2 x 1000 adversary records: the members among the 1000 guessed are
    # hypergeometric, Var = 1000 * 1000 / (4 * 1999) = 125.0625; risk = 2 X / 1000 - 1 has variance
    # 4 * 125.0625 / 10^6 = 5.0025e-4, so 1.959964 * 0.022366 = 0.043837.
    resolve, params = hook("mi_risk", quantile_levels=[0.5])
    r = resolve(params, release_of(sized(1000), sized(1200), sized(1000)))
    assert (r.no_leak, r.records, r.width_is) == (0.0, 2000, "at most")
    assert r.half_width == pytest.approx(0.043837, abs=1e-6)


def test_mi_risk_width_matches_the_bootstrap_of_the_attack_when_nothing_leaks():
    # The metric's own interval (stratified bootstrap, default thresholds) on 3,000 members and 3,000
    # non-members whose distances come from one distribution: the demo's indhist release had
    # [-0.084, 0.060] at this size; the permutation estimate is 0.0730.
    from policycheck.methods.membership_test import membership_inference_test

    rng = np.random.default_rng(5)
    test = membership_inference_test(
        rng.exponential(size=3000), rng.exponential(size=3000), (0.5, 0.25, 0.2, 0.01), rng
    )
    resolve, params = hook("mi_risk")
    r = resolve(params, release_of(sized(3000), sized(3000), sized(3000)))
    assert r.half_width == pytest.approx(0.0730, abs=5e-4)
    assert (test.risk_interval[1] - test.risk_interval[0]) / 2 == pytest.approx(r.half_width, rel=0.2)


def copies_release():
    # 400 holdout rows equal one training row each and no other holdout row; 600 equal nothing.
    training = pd.DataFrame({"x": [f"a{i}" for i in range(400)] + [f"t{i}" for i in range(600)]})
    holdout = pd.DataFrame({"x": [f"a{i}" for i in range(400)] + [f"h{i}" for i in range(600)]})
    return release_of(training, holdout, sized(1000))


def test_exact_copy_width_rests_on_the_records_that_copy_one_real_set_only():
    # 0.4 of the records copy one set only: d = 400 of n = 1000, half of them each way at no leak; the
    # excess's interval reaches delta (2 u - 1) at each part's 97.5 % upper end: delta = Beta(0.9875; 401, 600)
    # = 0.435545, u = Beta(0.9875; 201, 200) = 0.557063: 0.435545 * 0.114126 = 0.049707.
    resolve, params = hook("exact_copy_share")
    r = resolve(params, copies_release())
    assert (r.no_leak, r.records) == (0.0, 1000)
    assert r.half_width == pytest.approx(0.049707, abs=1e-6)


def test_exact_copy_width_without_the_baseline_is_clopper_pearson_at_the_chance_share():
    # baseline: none: the no-leak value is the holdout's share of training copies, 0.4; Clopper-Pearson
    # upper end of 400/1000, Beta(0.975; 401, 600) = 0.431122.
    resolve, params = hook("exact_copy_share", baseline="none")
    r = resolve(params, copies_release())
    assert r.no_leak == 0.4 and r.half_width == pytest.approx(0.031122, abs=1e-6)


def near_copies_release():
    # One numeric column; the real sets span 0..16,990, so a Gower distance of 0.00015 is 2.5 units.
    # Holdout: 400 records 1 unit from a training record and 10 from any other holdout record (near training
    # only); 100 pairs 1 unit apart, far from training (near the holdout only); 100 pairs 1-2 units from a
    # training record and 1 from each other (near both); 200 records at least 10 units from every record.
    training = np.arange(0, 10_000, 10.0)
    holdout = np.concatenate(
        [
            np.arange(0, 4_000, 10.0) + 1,
            np.repeat(12_000 + np.arange(0, 1_000, 10.0), 2) + np.tile([0.0, 1.0], 100),
            np.repeat(np.arange(4_000, 5_000, 10.0), 2) + np.tile([1.0, 2.0], 100),
            15_000 + np.arange(0, 2_000, 10.0),
        ]
    )
    frames = [pd.DataFrame({"x": x}) for x in (training, holdout, np.linspace(0, 20_000, 1_000))]
    release = release_of(*frames)
    release.column_types["x"] = ColumnType.NUMERIC
    return release


def test_near_copy_width_rests_on_the_records_near_one_real_set_only():
    # 600 of the 1,000 holdout records are near one real set only (400 training, 200 holdout): d = 600 of
    # n = 1000; at 97.5 % delta = Beta(0.9875; 601, 400) = 0.634796 and u = Beta(0.9875; 301, 300) = 0.546466,
    # so the excess's interval reaches 0.634796 * 0.092932 = 0.058993.
    resolve, params = hook("near_copy_share", within=0.00015)
    r = resolve(params, near_copies_release())
    assert (r.no_leak, r.records) == (0.0, 1000)
    assert r.half_width == pytest.approx(0.058993, abs=1e-6)
    assert "when 0.6 of the records come within 0.00015 of one real set only" in r.basis


def test_near_copy_width_without_the_baseline_is_clopper_pearson_at_the_chance_share():
    # 600 holdout records are near a training record (400 + 200 in pairs): Beta(0.975; 601, 400) - 0.6 = 0.030531.
    resolve, params = hook("near_copy_share", within=0.00015, baseline="none")
    r = resolve(params, near_copies_release())
    assert r.no_leak == 0.6 and r.half_width == pytest.approx(0.030531, abs=1e-6)


def test_near_copy_width_of_a_large_holdout_comes_from_an_even_sample_against_the_rest(monkeypatch):
    # Every 10th holdout record (rows 0, 10, ..., 990): 40 near training only, 20 with their pair partner
    # among the rest (near the holdout only), 20 near both, 20 near nothing: 0.6 again, as with every record.
    from policycheck.metrics.membership import near_copy_share

    monkeypatch.setattr(near_copy_share, "RESOLUTION_SAMPLE", 100)
    resolve, params = hook("near_copy_share", within=0.00015)
    r = resolve(params, near_copies_release())
    assert r.half_width == pytest.approx(0.058993, abs=1e-6)


def test_records_that_would_resolve_a_level_grow_as_the_square_of_the_width_ratio():
    # 800 * (0.02835 / 0.01)^2 = 6429.78 -> 6,430.
    r = Resolution(0.0, 0.02835, 800, "synthetic records", "")
    assert (r.records_for(0.01), r.records_for(0.05), r.records_for(0.0)) == (6430, 800, None)


# --- validate -r and plan -r: the coarse case


COARSE = """\
metadata: {id: coarse, title: Coarse, version: "1", owner: tests}
attacker: {model: no-box}
rules:
  - id: exact-copies
    metric: exact_copy_share
    threshold: {fail_above: 0.01, warn_above: 0.001}
  - id: copies-on-the-estimate
    metric: exact_copy_share
    threshold: {fail_above: 0.01, compare: estimate}
  - id: wide-copies
    metric: exact_copy_share
    threshold: {fail_above: 0.5}
"""


@pytest.fixture
def coarse_release(write):
    # 800 + 800 records over 800 equally likely combinations of three coarse columns: about 63% of the
    # records copy a record of the other set by chance, and about half copy one set only (0.47 here).
    rng = np.random.default_rng(3)
    frames = {
        name: pd.DataFrame({"a": rng.integers(0, 10, 800), "b": rng.integers(0, 10, 800), "c": rng.integers(0, 8, 800)})
        for name in ("training", "holdout", "synthetic")
    }
    for name, frame in frames.items():
        frame.to_csv(write(f"{name}.csv", ""), index=False)
    return write(
        "release.yaml",
        "release: {id: coarse}\noriginal: training.csv\nholdout: holdout.csv\n"
        "synthetic:\n  - path: synthetic.csv\n"
        "columns: {a: categorical, b: categorical, c: categorical}\n",
    )


def test_validate_notes_a_level_below_resolution_at_its_place_and_still_exits_0(write, coarse_release):
    result = CliRunner().invoke(cli, ["validate", str(write("p.yaml", COARSE)), "-r", str(coarse_release)])
    assert result.exit_code == 0, result.output
    # The levels' notes, at their places (the policy's scope note, "not tested", is tests/test_cli.py's).
    notes = [line for line in result.stderr.splitlines() if ": note: " in line and ": note: not tested: " not in line]
    assert [n.split(": note: ")[0] for n in notes] == ["p.yaml:6:17", "p.yaml:6:35", "p.yaml:9:17"]
    assert (
        "rule 'exact-copies': the fail level 0.01 is below what this sample can resolve: at 800 synthetic "
        "records the 95% interval of a release with no leak (value 0) would reach about" in notes[0]
    )
    assert "so such a release can at best be inconclusive; about" in notes[0]
    assert "such a release can at best warn" in notes[1]
    assert "judged on the estimate, such a release has its estimate beyond the level by chance about" in notes[2]
    assert not any("wide-copies" in n for n in notes)  # its level is within what the sample resolves


def test_plan_shows_each_metrics_resolution_and_the_levels_it_cannot_resolve(write, coarse_release):
    result = CliRunner().invoke(cli, ["plan", str(write("p.yaml", COARSE)), "-r", str(coarse_release)])
    assert result.exit_code == 0, result.output
    assert result.output.count("      resolution: no leak 0, interval about ±") == 3
    assert "p.yaml:6:17: note: rule 'exact-copies': the fail level 0.01 is below" in result.output
