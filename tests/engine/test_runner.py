import datetime as dt

from conftest import TOY_POLICY, registered_toy_metric

from policycheck.engine.compiler import compile_plan
from policycheck.engine.runner import run_plan
from policycheck.policy.load import load_policy
from policycheck.release.load import load_manifest


def run(write, toy_release, text):
    release = load_manifest(toy_release["manifest"])
    plan = compile_plan(load_policy(write("p.yaml", text), release), release)
    return run_plan(plan, release, seed=1)


def test_measured_value_is_judged_against_the_threshold(toy_metric, write, toy_release):
    (outcome,) = run(write, toy_release, TOY_POLICY).outcomes
    # synthetic rows 0,1,2,4,4,5: sexes M,F,M,M,M,M -> 5/6 male, above warn 0.6, below fail 0.9
    assert outcome.result.value == 5 / 6
    assert outcome.verdict == "warn"


def test_evaluator_exception_becomes_an_error_verdict(toy_metric, write, toy_release):
    (outcome,) = run(write, toy_release, TOY_POLICY.replace("value: Male}", "value: Male, explode: true}")).outcomes
    assert outcome.verdict == "error"
    assert outcome.error == "the toy evaluator was told to fail"


def test_live_waiver_turns_a_failure_into_waived(toy_metric, write, toy_release):
    expires = (dt.date.today() + dt.timedelta(days=30)).isoformat()
    text = TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_above: 0.5") + (
        f"waivers:\n  - {{rule: male-share, reason: accepted, approved_by: DPO, expires: {expires}}}\n"
    )
    (outcome,) = run(write, toy_release, text).outcomes
    assert (outcome.verdict, outcome.raw_verdict, outcome.waiver.approved_by) == ("waived", "fail", "DPO")


def test_waiver_of_a_passing_rule_is_listed_as_unused(toy_metric, write, toy_release):
    text = TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_above: 0.95") + (
        "waivers:\n  - {rule: male-share, reason: accepted, approved_by: DPO, expires: 2099-01-01}\n"
    )
    result = run(write, toy_release, text)
    assert result.outcomes[0].verdict == "pass" and result.unused_waivers == ("male-share",)


def test_needs_of_a_batching_intermediate_are_grouped_only_with_several_workers():
    from policycheck.engine.runner import _groups
    from policycheck.metrics.base import Need

    original = Need.of("reconstruction_attacks", records="original", secret="s")
    control = Need.of("reconstruction_attacks", records="holdout", secret="s")
    dcr = Need.of("gower_dcr", synthetic=0)
    assert _groups([original, dcr, control], parallel=True) == [[original, control], [dcr]]
    assert _groups([original, dcr, control], parallel=False) == [[original], [dcr], [control]]


# --- verdicts across rules: inconclusive, on_inconclusive, refuted claims

import pytest  # noqa: E402
from pydantic import Field  # noqa: E402

from policycheck.metrics import registry  # noqa: E402
from policycheck.metrics.base import MetricResult  # noqa: E402
from policycheck.metrics.registry import Params  # noqa: E402
from policycheck.release.claims import Claim  # noqa: E402


class FixedParams(Params):
    value: float = Field(description="The value to report.")
    interval: list[float] | None = Field(None, description="Its interval.")
    sample_size: int | None = Field(None, description="Records behind the interval.")
    refutes: list[int] = Field(default_factory=list, description="Synthetic sets whose epsilon claim it refutes.")
    relies_on: list[int] = Field(default_factory=list, description="Synthetic sets whose epsilon claim it relies on.")


@pytest.fixture
def fixed_metric():
    """``fixed``: reports the value, interval and claims its params give (no data read)."""

    def fixed(ctx, params, needs):
        """A number given in the params (test metric)."""
        interval = tuple(params.interval) if params.interval else None
        return MetricResult(
            params.value,
            interval,
            0.95,
            sample_size=params.sample_size,
            refutes=tuple(Claim.of_synthetic_set(i) for i in params.refutes),
            relies_on=tuple(Claim.of_synthetic_set(i) for i in params.relies_on),
        )

    yield from registered_toy_metric("fixed", fixed, FixedParams)


HEAD = 'metadata: {id: t, title: T, version: "1", owner: tests}\nattacker: {model: no-box}\n'


def outcomes(write, toy_release, text):
    return {o.evaluation.rule.id: o for o in run(write, toy_release, HEAD + text).outcomes}


def test_rule_relying_on_a_claim_another_rule_refutes_fails(fixed_metric, write, toy_release):
    got = outcomes(
        write,
        toy_release,
        """\
rules:
  - {id: dp-claim, metric: fixed, params: {value: 4.5, refutes: [0]}, threshold: {fail_above: 0}}
  - {id: dp-budget, metric: fixed, params: {value: 1.6, relies_on: [0]}, threshold: {fail_above: 3}}
""",
    )
    budget = got["dp-budget"]
    assert budget.verdict == "fail"
    assert "relies on the epsilon claim of synthetic[0], which rule 'dp-claim' refuted in this run" in budget.reason


def test_refutation_counts_even_when_the_refuting_rule_passes_its_threshold(fixed_metric, write, toy_release):
    got = outcomes(
        write,
        toy_release,
        """\
rules:
  - {id: dp-claim, metric: fixed, params: {value: 0.4, refutes: [0]}, threshold: {fail_above: 1}}
  - {id: dp-budget, metric: fixed, params: {value: 1.6, relies_on: [0]}, threshold: {fail_above: 3}}
""",
    )
    assert (got["dp-claim"].verdict, got["dp-budget"].verdict) == ("pass", "fail")


def test_claims_nobody_refutes_leave_the_verdict_alone(fixed_metric, write, toy_release):
    got = outcomes(
        write,
        toy_release,
        """\
rules:
  - {id: dp-claim, metric: fixed, params: {value: 0, refutes: [1]}, threshold: {fail_above: 0}}
  - {id: dp-budget, metric: fixed, params: {value: 1.6, relies_on: [0]}, threshold: {fail_above: 3}}
""",
    )
    assert got["dp-budget"].verdict == "pass" and got["dp-budget"].reason is None


def test_inconclusive_rule_carries_records_to_settle(fixed_metric, write, toy_release):
    got = outcomes(
        write,
        toy_release,
        """\
rules:
  - id: risk
    metric: fixed
    params: {value: 0.078, interval: [-0.22, 0.378], sample_size: 1000}
    threshold: {fail_above: 0.3, compare: upper}
""",
    )
    assert (got["risk"].verdict, got["risk"].records_to_settle, got["risk"].on_inconclusive) == (
        "inconclusive",
        1827,
        "warn",
    )


def test_rule_on_inconclusive_overrides_the_policys(fixed_metric, write, toy_release):
    got = outcomes(
        write,
        toy_release,
        """\
on_inconclusive: fail
rules:
  - {id: a, metric: fixed, params: {value: 0.1, interval: [0, 0.4]}, threshold: {fail_above: 0.3, compare: upper}}
  - {id: b, metric: fixed, params: {value: 0.1, interval: [0, 0.4]}, threshold: {fail_above: 0.3, compare: upper},
     on_inconclusive: warn}
""",
    )
    assert (got["a"].on_inconclusive, got["b"].on_inconclusive) == ("fail", "warn")


def test_live_waiver_accepts_an_inconclusive_rule(fixed_metric, write, toy_release):
    got = outcomes(
        write,
        toy_release,
        """\
rules:
  - {id: a, metric: fixed, params: {value: 0.1, interval: [0, 0.4]}, threshold: {fail_above: 0.3, compare: upper}}
waivers:
  - {rule: a, reason: pilot only, approved_by: DPO, expires: 2099-01-01}
""",
    )
    assert (got["a"].verdict, got["a"].raw_verdict) == ("waived", "inconclusive")


def test_a_cause_shared_by_two_needs_is_said_once(toy_metric, write, toy_release):
    import dataclasses

    from policycheck.metrics.base import EvaluationError

    def broken(ctx, synthetic, column):
        raise EvaluationError("column sex is broken")

    # NOTE: replaced in place, so the toy_metric fixture's teardown removes it.
    registry._INTERMEDIATES["toy_counts"] = dataclasses.replace(registry._INTERMEDIATES["toy_counts"], compute=broken)
    manifest = toy_release["manifest"]
    # A second synthetic set: a file of its own (the same file twice is refused).
    (manifest.parent / "synthetic2.csv").write_bytes((manifest.parent / "synthetic.csv").read_bytes())
    manifest.write_text(manifest.read_text() + "  - path: synthetic2.csv\n")
    (outcome,) = run(write, toy_release, TOY_POLICY).outcomes
    assert outcome.verdict == "error" and outcome.error.count("column sex is broken") == 1
    assert "toy_counts(column=sex, synthetic=0) and toy_counts(column=sex, synthetic=1)" in outcome.error


def test_a_value_error_inside_an_evaluator_is_reported_as_an_internal_error_not_as_user_words(
    toy_metric, write, toy_release
):
    import dataclasses

    def broken(ctx, params, needs):
        raise ValueError("operands could not be broadcast together")

    registry._METRICS["toy_share"] = dataclasses.replace(registry._METRICS["toy_share"], evaluate=broken)
    (outcome,) = run(write, toy_release, TOY_POLICY).outcomes
    assert outcome.verdict == "error"
    assert outcome.error.startswith("internal error ValueError: operands could not be broadcast together (at ")


# --- rules evaluated side by side with several workers

import threading  # noqa: E402

from policycheck.execution.executor import SerialExecutor  # noqa: E402


class TwoWorkers(SerialExecutor):
    """Work in this process, as an executor of two workers on a machine of two cores or more."""

    workers = 2

    @property
    def threads(self):
        return 2


class MeetParams(Params):
    value: float = Field(description="The value to report.")


@pytest.fixture
def meeting_metric():
    """``meet``: waits (up to 10 s) until two rules are being evaluated at once, then reports its value."""
    both = threading.Barrier(2, timeout=10)

    def meet(ctx, params, needs):
        """A number given in the params, reported once another rule's evaluation is also under way (test metric)."""
        both.wait()
        return MetricResult(params.value, None, 0.95)

    yield from registered_toy_metric("meet", meet, MeetParams)


TWO_MEETING_RULES = """rules:
  - {id: first, metric: meet, params: {value: 0.1}, threshold: {fail_above: 0.5}}
  - {id: second, metric: meet, params: {value: 0.9}, threshold: {fail_above: 0.5}}
"""


def test_with_two_workers_rules_are_evaluated_side_by_side_and_reported_in_plan_order(
    meeting_metric, write, toy_release
):
    import io

    from policycheck.engine.progress import Progress

    release = load_manifest(toy_release["manifest"])
    plan = compile_plan(load_policy(write("p.yaml", HEAD + TWO_MEETING_RULES), release), release)
    out = io.StringIO()
    result = run_plan(plan, release, seed=1, executor=TwoWorkers(), progress=Progress(out, plain=True))
    # each evaluator waited for the other: one after the other, both would have timed out as errors
    assert [(o.evaluation.rule.id, o.verdict, o.result.value) for o in result.outcomes] == [
        ("first", "pass", 0.1),
        ("second", "fail", 0.9),
    ]
    assert out.getvalue().splitlines() == ["[1/2] evaluating first (meet)", "[2/2] evaluating second (meet)"]


def test_with_one_worker_rules_are_evaluated_one_after_another_in_this_thread(fixed_metric, write, toy_release):
    import dataclasses

    threads = []

    def fixed(ctx, params, needs):
        threads.append(threading.get_ident())
        return MetricResult(params.value, None, 0.95)

    registry._METRICS["fixed"] = dataclasses.replace(registry._METRICS["fixed"], evaluate=fixed)
    outcomes(
        write,
        toy_release,
        "rules:\n  - {id: a, metric: fixed, params: {value: 0.1}, threshold: {fail_above: 0.5}}\n"
        "  - {id: b, metric: fixed, params: {value: 0.2}, threshold: {fail_above: 0.5}}\n",
    )
    assert threads == [threading.get_ident()] * 2


EVERY_FAMILY = """\
metadata: {id: families, title: One rule of each family, version: "1", owner: tests}
attacker:
  model: partially-informed
  quasi_identifiers: [age, sex, race, marital_status, education]
  secrets: [income]
seed: 7
rules:
  - {id: singling-out, metric: singling_out_risk, params: {n_attacks: 200, n_cols: 3}, threshold: {fail_above: 0.1}}
  - {id: linkability, metric: linkability_risk, params: {n_neighbors: 5, n_attacks: 200}, threshold: {fail_above: 0.1}}
  - {id: inference, metric: inference_risk, params: {n_attacks: 200}, threshold: {fail_above: 0.2}}
  - {id: dcr-baseline, metric: dcr_baseline_protection, params: {baseline: holdout}, threshold: {fail_below: 0.5}}
  - {id: replicated-uniques, metric: replicated_uniques, threshold: {fail_above: 0.02}}
  - {id: disco, metric: disco, threshold: {fail_above: 0.05}}
  - {id: tcap, metric: tcap, params: {baseline: holdout}, threshold: {fail_above: 0.05}}
  - {id: cap-protection, metric: cap_disclosure_protection, params: {baseline: holdout}, threshold: {fail_below: -0.08}}
  - {id: near-copies, metric: near_copy_share, params: {within: 0.002}, threshold: {fail_above: 0.01}}
  - {id: density, metric: density_membership_risk, threshold: {fail_above: 0.3}}
  - {id: dcr-share, metric: dcr_share, threshold: {fail_above: 0.55}}
  - {id: mi-risk, metric: mi_risk, threshold: {fail_above: 0.2}}
"""


def test_rules_of_every_family_side_by_side_give_the_report_they_give_in_turn(tmp_path):
    # The demo policy is compared across executors in tests/execution/test_dask_executor.py;
    # this covers the other families.
    import json

    from policycheck.interfaces.check import CheckOptions, check_release
    from policycheck.interfaces.demo import write_release
    from policycheck.report.integrity import without_run_context

    release = load_manifest(write_release("nonprivate", tmp_path / "release", seed=20261121))
    policy = tmp_path / "families.policy.yaml"
    policy.write_text(EVERY_FAMILY)
    reports = {}
    for executor, workers in (("serial", 1), ("local", 2)):
        out = tmp_path / executor
        check_release(policy, release, out, CheckOptions(executor=executor, workers=workers), formats=("json",))
        reports[executor] = without_run_context(json.loads((out / "report.json").read_text()))
    assert [r["id"] for r in reports["local"]["rules"]] == [r["id"] for r in reports["serial"]["rules"]]
    assert reports["local"] == reports["serial"]
