"""Progress on stderr: a live line per plan step on a terminal, plain lines elsewhere."""

import io

from policycheck.engine import progress as progress_module
from policycheck.engine.progress import Progress, eta_text, short, step_labels
from policycheck.metrics.base import Need


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_plain_lines_name_each_step_once():
    out = io.StringIO()
    p = Progress(out, plain=True)
    p.step(1, 2, "computing gower_dcr(synthetic=0)")
    p.tick("gower", 3, 10)  # too soon for a line
    p.step(2, 2, "evaluating dcr-share (dcr_share)")
    p.done()
    assert out.getvalue().splitlines() == [
        "[1/2] computing gower_dcr(synthetic=0)",
        "[2/2] evaluating dcr-share (dcr_share)",
    ]


def stopped_clock(monkeypatch, *readings):
    """The progress module's clock reads ``readings``, one per call, in turn."""
    clock = iter(readings)

    class Clock:
        monotonic = staticmethod(lambda: next(clock))

    monkeypatch.setattr(progress_module, "time", Clock)


def test_a_long_plain_step_reports_its_count_and_eta(monkeypatch):
    stopped_clock(monkeypatch, 100.0, 120.0)  # the step starts, its first tick
    out = io.StringIO()
    p = Progress(out, plain=True)
    p.step(1, 1, "attribute inference game")
    p.tick("attribute inference game", 1, 5)
    # 20 s for 1 of 5 repetitions: 4 more take 80 s.
    assert out.getvalue().splitlines()[1] == "  attribute inference game: 1/5 tasks, 20s elapsed, ETA 1m20s"


def test_a_non_terminal_stream_gets_plain_lines_even_without_plain():
    out = io.StringIO()
    Progress(out).step(1, 1, "x")
    assert out.getvalue() == "[1/1] x\n"


def test_a_long_intermediates_parameters_are_cut_inside_its_parentheses():
    label = "computing gower_dcr(synthetic=0, columns=[age, sex, race, education, marital_status, income])"
    assert short(label) == "computing gower_dcr(synthetic=0, columns=[age, sex, race, …)"
    assert len(short(label)) == 60


def test_an_evaluation_label_is_never_cut():
    label = "evaluating income-inference-individual-risk-for-every-person (reconstruction_individual_risk)"
    assert short(label) == label


def test_parameter_values_read_as_users_write_them_not_as_python_reprs():
    need = Need.of("gower_dcr", synthetic=0, columns=("age", "sex"), sample=None)
    assert need.text() == "gower_dcr(columns=[age, sex], sample=none, synthetic=0)"


def test_steps_are_numbered_without_gaps_when_intermediates_are_batched(monkeypatch, toy_metric, write, toy_release):
    from conftest import TOY_POLICY

    from policycheck.engine import runner
    from policycheck.engine.compiler import compile_plan
    from policycheck.metrics import registry
    from policycheck.policy.load import load_policy
    from policycheck.release.load import load_manifest

    two_rules = TOY_POLICY + (
        '  - id: high-income\n    metric: toy_share\n    params: {column: income, value: ">50K"}\n'
        "    threshold: {fail_above: 0.9, compare: estimate}\n"
    )
    release = load_manifest(toy_release["manifest"])
    plan = compile_plan(load_policy(write("p.yaml", two_rules), release), release)
    # the two toy_counts Needs computed as one batch, as a batching intermediate's are with several workers
    monkeypatch.setattr(runner, "_groups", lambda needs, parallel: [needs])
    monkeypatch.setattr(
        registry, "compute_intermediates", lambda ctx, group: [registry.compute_intermediate(ctx, n) for n in group]
    )
    out = io.StringIO()
    runner.run_plan(plan, release, seed=1, progress=Progress(out, plain=True))
    assert out.getvalue().splitlines() == [
        "[1/3] computing toy_counts(column=sex) + toy_counts(column=income)",
        "[2/3] evaluating male-share (toy_share)",
        "[3/3] evaluating high-income (toy_share)",
    ]


def _linkage(mapping, records):
    return Need.of(
        "linkage_attack", secret="age", attributes=None, criterion="sum", orders=(), records=records, mapping=mapping
    )


def test_a_linkage_steps_label_shows_its_mapping():
    needs = [_linkage(m, r) for m in ("reverse", "released") for r in ("original", "holdout")]
    labels = step_labels(needs)
    assert [labels[n] for n in needs] == [
        "linkage_attack(mapping=reverse, records=original)",
        "linkage_attack(mapping=reverse, records=holdout)",
        "linkage_attack(mapping=released, records=original)",
        "linkage_attack(mapping=released, records=holdout)",
    ]
    assert short("computing " + labels[needs[2]]) == "computing linkage_attack(mapping=released, records=original)"


def test_an_intermediate_needed_once_is_labelled_by_its_name_alone():
    needs = [
        Need.of("three_way_marginal_errors", columns=None, min_count=10),
        Need.of("gower_dcr", synthetic=0),
        Need.of("gower_dcr", synthetic=1),
    ]
    assert list(step_labels(needs).values()) == [
        "three_way_marginal_errors",
        "gower_dcr(synthetic=0)",
        "gower_dcr(synthetic=1)",
    ]


def test_a_parameter_only_some_needs_have_is_shown_where_present():
    needs = [Need.of("gower_dcr", synthetic=0), Need.of("gower_dcr", synthetic=0, stream=True)]
    assert list(step_labels(needs).values()) == ["gower_dcr", "gower_dcr(stream=True)"]


def test_eta_reads_in_minutes_and_hours():
    assert (eta_text(42), eta_text(80), eta_text(3725), eta_text(None)) == ("42s", "1m20s", "1h02m", "?")


def test_a_terminal_gets_a_live_bar_with_count_and_eta():
    out = Terminal()
    p = Progress(out)
    assert p.live
    p.step(1, 2, "computing linkage(synthetic=0)")
    p.tick("linkage", 3, 4)
    p.step(2, 2, "evaluating age-narrowing (linkage_range_narrowing)")
    p.done()
    text = out.getvalue()
    assert "[1/2] computing linkage(synthetic=0)" in text and "[2/2] evaluating age-narrowing" in text
    assert "4/4" in text and "ETA" in text  # the first step's line ends complete: 4 of 4 tasks


def test_disabled_progress_writes_nothing():
    out = Terminal()
    p = Progress(out, enabled=False)
    p.step(1, 1, "x")
    p.tick("x", 1, 1)
    p.done()
    assert out.getvalue() == ""


def test_steps_side_by_side_each_tick_their_own_live_line():
    out = Terminal()
    p = Progress(out)
    first = p.begin(1, 2, "evaluating dcr-share (dcr_share)")
    second = p.begin(2, 2, "evaluating game (membership_inference_advantage)")
    second.tick("game", 5, 200)
    first.tick("dcr", 1, 3)
    first.end()
    tasks = {task.description: (task.completed, task.total) for task in p._bar.tasks}
    assert tasks == {
        "[1/2] evaluating dcr-share (dcr_share)": (3, 3),  # ended: shown complete
        "[2/2] evaluating game (membership_inference_advantage)": (5, 200),  # still running
    }
    p.done()


def test_a_step_side_by_side_reports_its_own_elapsed_time_in_plain_lines(monkeypatch):
    stopped_clock(monkeypatch, 0.0, 10.0, 30.0)  # first begins, second begins, second's tick
    out = io.StringIO()
    p = Progress(out, plain=True)
    p.begin(1, 2, "evaluating a (x)")
    p.begin(2, 2, "evaluating b (x)").tick("b", 1, 2)
    assert out.getvalue().splitlines() == [
        "[1/2] evaluating a (x)",
        "[2/2] evaluating b (x)",
        "  b: 1/2 tasks, 20s elapsed, ETA 20s",
    ]


def test_a_step_ended_twice_is_closed_once_and_the_run_still_ends():
    out = Terminal()
    p = Progress(out)
    step = p.begin(1, 1, "evaluating a (x)")
    step.tick("a", 2, 5)
    step.end()
    step.end()  # the run's own end (done) closes its steps again
    p.done()
    assert "5/5" in out.getvalue()  # shown complete, once
