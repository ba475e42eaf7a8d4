"""The plan's time and memory estimates, against hand computations."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from policycheck.interfaces.cli import cli
from policycheck.methods import cost_model
from policycheck.release.model import ColumnType, Dataset, Release


class _Rows:
    """A frame stand-in with a length only: the estimates read sizes, never values."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n


def release(n_train: int, n_hold: int, n_syn: int, numeric: int, categorical: int) -> Release:
    types = {f"x{j}": ColumnType.NUMERIC for j in range(numeric)} | {
        f"c{j}": ColumnType.CATEGORICAL for j in range(categorical)
    }
    return Release(
        "r",
        Dataset("original", "original", _Rows(n_train)),
        (Dataset("synthetic", "synthetic[0]", _Rows(n_syn)),),
        Dataset("holdout", "holdout", _Rows(n_hold)),
        types,
    )


def test_dcr_estimate_of_mixed_columns_is_the_calibrated_tree_formula():
    est = cost_model.gower_dcr(release(500_000, 500_000, 500_000, 6, 6), 0)
    # 4 directions of 500,000 queries against 500,000 records: 2.0e-6 * 2e6 * 500000 ** 0
    # = 4.0 s (the bench's median 4.01 s).
    assert est.seconds == pytest.approx(4.0)
    # 8 bytes * 1.5e6 rows * (3 * 12 + 6 + 1) = 516 MB.
    assert est.bytes == 516_000_000


def test_dcr_estimate_of_numeric_columns_only_counts_every_pair():
    est = cost_model.gower_dcr(release(10_000, 5_000, 20_000, 30, 0), 0)
    # syn->train 2e4*1e4, syn->hold 2e4*5e3, train->syn 1e4*2e4, hold->syn 5e3*2e4: 6e8 pairs * 30 terms / 5.8e9.
    assert est.seconds == pytest.approx(6e8 * 30 / 5.8e9)
    assert est.bytes == 8 * 35_000 * (3 * 30 + 0 + 1)


def test_dcr_estimate_uses_only_the_rule_columns():
    est = cost_model.gower_dcr(release(100, 100, 100, 6, 6), 0, columns=("x0", "c0", "c1"))
    assert est.bytes == 8 * 300 * (3 * 3 + 2 + 1)


def test_estimate_wording():
    assert cost_model.StepEstimate(150.0, 2_500_000_000).describe(2) == (
        "about 2 min of CPU, about 75 s on 2 workers, about 2500 MB of memory"
    )
    assert cost_model.StepEstimate(0.2, 1000).describe(2) == "under 1 s of CPU, under 1 MB of memory"


DCR_POLICY = """\
metadata: {id: dcr, title: DCR, version: "1", owner: tests}
attacker: {model: maximum-knowledge, quasi_identifiers: [sex], secrets: [income]}
rules:
  - id: dcr-share
    metric: dcr_share
    threshold: {fail_above: 0.6}
"""


def test_plan_with_a_release_prints_each_step_estimate(write, toy_release):
    policy = write("p.yaml", DCR_POLICY)
    text = CliRunner().invoke(cli, ["plan", str(policy), "-r", str(toy_release["manifest"]), "--workers", "2"])
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  gower_dcr(synthetic=0): "))
    assert lines[at + 2] == "      estimate: under 1 s of CPU, under 1 MB of memory"
    as_json = CliRunner().invoke(cli, ["plan", str(policy), "-r", str(toy_release["manifest"]), "--json"])
    (step,) = json.loads(as_json.output)["intermediates"]
    # 6 + 6 + 6 rows, p = 3 (age numeric; sex, income categorical): 8 * 18 * (3 * 3 + 2 + 1) bytes.
    assert step["estimate"]["memory_bytes"] == 1728


def test_plan_without_a_release_prints_no_estimate(write):
    text = CliRunner().invoke(cli, ["plan", str(write("p.yaml", DCR_POLICY))])
    assert text.exit_code == 0
    assert "estimate:" not in text.output


def test_linkage_estimate_is_sets_times_records_times_the_calibrated_rate():
    est = cost_model.linkage_attack(
        release(100_000, 50_000, 100_000, 4, 2), None, ("x0", "x1", "x2", "x3", "c0"), "sum"
    )
    # One set, 10^5 records, p = 5: 1.3e-5 * 1e5 * 6 / 6 = 1.3 s; 72 B * 1e5 results + 6 * 8 * 1e5 * 6 work.
    assert est.seconds == pytest.approx(1.3)
    assert est.bytes == 7_200_000 + 28_800_000
    holdout = cost_model.linkage_attack(release(100_000, 50_000, 100_000, 4, 2), None, None, "sum", records="holdout")
    # The control attacks the 50,000 holdout records; without attributes every other column counts (p = 5).
    assert holdout.seconds == pytest.approx(0.65)


def test_a_small_linkage_attack_runs_in_this_process(monkeypatch):
    from bench.bench_linkage import make_release
    from policycheck.execution.local import LocalProcessExecutor
    from policycheck.methods.linkage import attack
    from policycheck.methods.linkage.reverse_mapping import attribute_order

    small = make_release(2_000, 5, 3, seed=0)
    orders = {c: attribute_order(c, ColumnType.NUMERIC, small.original.frame[c]) for c in small.columns}
    with LocalProcessExecutor(2) as executor:
        attack.run_attack(
            small,
            "secret",
            [c for c in small.columns if c != "secret"],
            "sum",
            orders,
            [np.random.default_rng(m) for m in range(3)],
            executor,
        )
        # 3 sets x 2,000 records: 0.078 s of work, under the 0.5 s that pays for a second worker.
        assert executor._pool is None


def test_reconstruction_estimate_is_the_calibrated_lp_forest_and_pairs_formula():
    est = cost_model.reconstruction_attacks(
        release(3_000, 2_000, 3_000, 6, 9), "original", "c0", None, ("lp", "dcr", "exact", "ml")
    )
    # p = 14 other columns, 364 triples: LP 5e-5 * 3000 * sqrt(364) = 2.862 s; forest 2.2e-6 * 100 * 3000
    # = 0.66 s; DCR and exact 1e-9 * 3000 * 3000 * 14 * 2 = 0.252 s (the Adult runs: 2.5 + 0.6 + 0.15 s).
    assert est.seconds == pytest.approx(2.8618176 + 0.66 + 0.252)
    # forest 16 B * 100 * 3000 = 4.8 MB over the LP's 8 B * 3000 * 364 = 8.7 MB: 8.7 MB + frames 8*4*6000*15.
    assert est.bytes == 8 * 3000 * 364 + 8 * 4 * 6000 * 15


def test_reconstruction_estimate_of_the_control_with_few_queries_and_no_lp():
    est = cost_model.reconstruction_attacks(
        release(3_000, 2_000, 3_000, 6, 9), "holdout", "c0", ("x0", "x1", "c1"), ("dcr", "ml"), n_queries=1
    )
    # 2,000 holdout records, p = 3: forest 0.66 s and DCR 1e-9 * 2000 * 3000 * 3 = 0.018 s.
    assert est.seconds == pytest.approx(0.66 + 0.018)


@pytest.mark.parametrize(
    "command",
    [
        ["check", "{policy}", "-r", "{manifest}", "-o", "{out}", "--workers", "1"],
        ["validate", "{policy}", "-r", "{manifest}"],
    ],
)
def test_a_check_and_a_validation_pay_for_no_step_estimate(write, toy_release, tmp_path, monkeypatch, command):
    import dataclasses

    from policycheck.metrics import registry

    registry.intermediates()  # loaded before one is replaced
    asked = []
    spec = registry._INTERMEDIATES["gower_dcr"]
    monkeypatch.setitem(
        registry._INTERMEDIATES,
        "gower_dcr",
        dataclasses.replace(spec, estimate=lambda release, **kw: asked.append(kw) or spec.estimate(release, **kw)),
    )
    names = {"policy": write("p.yaml", DCR_POLICY), "manifest": toy_release["manifest"], "out": tmp_path / "out"}
    done = CliRunner().invoke(cli, [part.format(**names) for part in command])
    assert done.exit_code in (0, 1), done.output
    assert asked == []  # only `plan` estimates (the game's estimate costs its whole set-up and a round)
    plan = CliRunner().invoke(cli, ["plan", str(names["policy"]), "-r", str(names["manifest"])])
    assert plan.exit_code == 0 and len(asked) == 1
