"""The committed effects of our conventions on the demo (policycheck/metrics/convention_effects.json).

The methods section of every report quotes these figures, so they are recomputed here from the
demo data (bench/convention_effects.py) and must equal the file: a change of code or data that
moves one fails until ``python -m bench.convention_effects`` rewrites it. The reconstruction
pair (an LP per release) is left to ``-m slow``.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from bench import convention_effects as ce
from policycheck.metrics.registry import EFFECTS_FILE, convention_effects, metrics

ROOT = Path(__file__).resolve().parents[1]
STORED = json.loads(EFFECTS_FILE.read_text(encoding="utf-8"))
CHEAP_PAIRS = tuple(k for k in ce.RULE_PAIRS if not k.startswith("reconstruction"))


def rounded(pair: dict[str, float]) -> dict[str, float]:
    return {side: round(float(v), ce.DIGITS) for side, v in pair.items()}


@pytest.fixture(scope="module", params=ce.RELEASES)
def demo(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    return request.param, ce.demo_release(request.param, folder), folder


def test_membership_effects_are_what_the_demo_data_gives(demo):
    name, release, _ = demo
    for key, pair in ce.membership_effects(release).items():
        assert rounded(pair) == STORED["effects"][key]["demo"][name], key


def test_param_switched_effects_are_what_the_demo_data_gives(demo):
    name, release, folder = demo
    for key, pair in ce.rule_pair_effects(release, folder, CHEAP_PAIRS).items():
        assert rounded(pair) == STORED["effects"][key]["demo"][name], key


def test_function_switched_effects_are_what_the_demo_data_gives(demo):
    name, release, folder = demo
    for key, pair in ce.switched_effects(release, folder).items():
        assert rounded(pair) == STORED["effects"][key]["demo"][name], key


def test_anonymeter_success_test_divides_by_the_guess_by_hand():
    guesses, secrets = np.array([-10.0, 52.0, 47.5, 0.0]), np.array([50.0, 50.0, 50.0, 0.0])
    # |g - s| / (g + 1e-12): -60 / -10 = -6 <= 0.05 (any negative guess passes); 2 / 52 = 0.038; 2.5 / 47.5 = 0.0526;
    # 0 / 1e-12 = 0
    assert ce.anonymeter_correct_guesses(guesses, secrets, True, 0.05).tolist() == [True, True, False, True]
    # ours, |g - s| <= 0.05 |s|: 60 > 2.5; 2 <= 2.5; 2.5 <= 2.5; 0 <= 0
    assert ce.OUR_CORRECT_GUESSES(guesses, secrets, True, 0.05).tolist() == [False, True, True, True]


@pytest.mark.slow
def test_reconstruction_effect_is_what_the_demo_data_gives(demo):
    name, release, folder = demo
    keys = tuple(k for k in ce.RULE_PAIRS if k not in CHEAP_PAIRS)
    for key, pair in ce.rule_pair_effects(release, folder, keys).items():
        assert rounded(pair) == STORED["effects"][key]["demo"][name], key


def test_our_side_of_each_effect_is_the_committed_demo_reports_value():
    # The same number two ways: the effects file's "ours" and the demo sample's rule (policies/demo.policy.yaml).
    rule_of = {
        "mi_risk/sure": "mi-risk",
        "dcr_share/ties": "dcr-share",
        "exact_copy_share/holdout-baseline": "exact-copies",
        "linkage_range_narrowing/baseline": "age-narrowing",
        "reconstruction_individual_risk/control": "income-inference",
    }
    for name in ce.RELEASES:
        report = json.loads((ROOT / "reports" / "demo" / name / "report.json").read_text(encoding="utf-8"))
        value = {r["id"]: r["value"] for r in report["rules"]}
        for key, rule in rule_of.items():
            assert STORED["effects"][key]["demo"][name]["ours"] == round(value[rule], ce.DIGITS), (key, name)


def test_sure_mi_risk_follows_its_quantile_rule_and_floor_by_hand():
    members, non_members = np.array([0, 0, 0.1, 0.3]), np.array([0, 0.2, 0.4, 0.5])
    # np.quantile (linear) of the 8 distances at 0.5, 0.25, 0.2 and min + 0.01: 0.15, 0, 0, 0. With d < t only the
    # first guesses anyone: 3 members of 4 guessed (0.75); the others guess nobody, precision 0.
    assert ce.sure_mi_risk(members, non_members, quantile_rule=True, floor=False) == pytest.approx((0.75 / 4 - 0.5) * 2)
    # floored at 0.5: (0.75 + 3 x 0.5) / 4 = 0.5625 -> 0.125
    assert ce.sure_mi_risk(members, non_members, quantile_rule=True, floor=True) == pytest.approx(0.125)
    # ours: inverted-CDF quantiles 0.1, 0, 0, 0 (level 0.5: the 4th of the 8 sorted) and d <= t:
    # t = 0.1 at 0.5 -> 3 members, 1 non-member (0.75); t = 0 -> 2 members, 1 non-member (2/3) three times
    assert ce.our_mi_risk(members, non_members) == pytest.approx(((0.75 + 3 * 2 / 3) / 4 - 0.5) * 2)


def test_sure_adversary_set_is_a_fifth_of_the_records_from_each_side(demo):
    _, release, _ = demo
    members, non_members = ce.sure_adversary_set(release)
    assert len(members) == len(non_members) == 600  # min(int(0.2 (3,000 + 3,000) / 2), 3,000)


def test_every_convention_effect_a_metric_names_is_measured_and_every_measured_one_is_named():
    named = {c.effect for spec in metrics().values() if spec.method for c in spec.method.conventions if c.effect}
    assert named == set(convention_effects())


def test_every_registered_metric_states_its_method():
    for name, spec in metrics().items():
        assert spec.method and spec.method.definition and spec.method.source, name


def test_the_table_in_docs_metrics_md_shows_the_committed_figures():
    def shown(v: float) -> str:
        return f"{v:g}".replace("-", "−")

    docs = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    for key, effect in STORED["effects"].items():
        (row,) = [line for line in docs.splitlines() if line.startswith(f"| `{key}` |")]
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2:] == [
            f"{shown(effect['demo'][n]['ours'])} / {shown(effect['demo'][n]['theirs'])}"
            for n in ("nonprivate", "indhist_dp")
        ], key
