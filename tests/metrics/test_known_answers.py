"""Every metric's known-answer cases (tests/metrics/<family>/cases/<metric>.yaml), run through a policy."""

from __future__ import annotations

import pytest

from tests.metrics.known_answers import DEFAULT_TOLERANCE, all_cases, mismatches, run_case

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[f"{c['metric']}:{c['name']}" for c in CASES])
def test_known_answer(case, tmp_path):
    rule = run_case(case, tmp_path)
    assert rule["error"] is None, rule["error"]
    assert mismatches(case["expect"], rule, float(case.get("tolerance", DEFAULT_TOLERANCE))) == []


def test_a_known_answer_case_must_say_where_its_numbers_come_from(tmp_path):
    from tests.metrics.known_answers import load_cases

    path = tmp_path / "m.yaml"
    path.write_text("metric: dcr_share\ncases:\n  - {name: x, original: [], expect: {value: 1}}\n")
    with pytest.raises(ValueError, match="lacks source"):
        load_cases(path)


def test_mismatches_compare_numbers_within_the_tolerance_and_mappings_on_the_expected_keys():
    assert (
        mismatches({"value": 0.5, "details": {"n": 3}}, {"value": 0.5 + 1e-12, "details": {"n": 3, "m": 1}}, 1e-9) == []
    )
    assert mismatches({"value": 0.5}, {"value": 0.6}, 1e-9) == [".value: expected 0.5, got 0.6"]


def test_every_registered_metric_has_known_answer_cases_in_its_family_folder():
    import yaml

    from policycheck.metrics import registry
    from tests.metrics.known_answers import cases_file, load_cases

    missing = []
    for name, spec in sorted(registry.metrics().items()):
        path = cases_file(spec.family, name)
        if not path.is_file():
            missing.append(f"{path.relative_to(path.parents[4])}: no such file")
        elif yaml.safe_load(path.read_text(encoding="utf-8")).get("metric") != name:
            missing.append(f"{path.name}: its `metric:` is not {name}")
        elif not load_cases(path):
            missing.append(f"{path.name}: no cases")
    assert missing == []
