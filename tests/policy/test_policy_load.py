import datetime as dt

import pytest
from conftest import TOY_POLICY

from policycheck.core.errors import InvalidInput
from policycheck.policy.load import load_policy
from policycheck.release.load import load_manifest


def problems_of(path, release=None, today=None):
    with pytest.raises(InvalidInput) as exc:
        load_policy(path, release, today=today)
    return [str(p) for p in exc.value.problems]


def test_valid_policy_loads(toy_metric, write):
    loaded = load_policy(write("p.yaml", TOY_POLICY))
    assert [r.id for r in loaded.rules] == ["male-share"]
    assert loaded.params["male-share"].value == "Male"


def test_unknown_key_is_reported_with_a_suggestion(toy_metric, write):
    path = write("p.yaml", TOY_POLICY.replace("owner: tests}", "owner: tests, titel: x}"))
    assert problems_of(path) == ["p.yaml:1:68: unknown key 'titel' (did you mean 'title'?)"]


def test_misspelt_metric_gets_the_nearest_name(toy_metric, write):
    path = write("p.yaml", TOY_POLICY.replace("metric: toy_share", "metric: toy_shar"))
    assert problems_of(path) == ["p.yaml:5:5: unknown metric 'toy_shar' (did you mean 'toy_share'?)"]


def test_misspelt_param_gets_the_nearest_name(toy_metric, write):
    path = write("p.yaml", TOY_POLICY.replace("value: Male", "valeu: Male"))
    found = problems_of(path)
    assert "p.yaml:6:27: unknown key 'valeu' (did you mean 'value'?)" in found


def test_every_problem_is_reported_in_one_run(toy_metric, write):
    text = TOY_POLICY.replace("model: no-box", "model: no-bx").replace("fail_above: 0.9", "fail_above: 1.5")
    text += "  - id: second\n    metric: nope\n    threshold: {fail_below: 0.1}\n"
    found = problems_of(write("p.yaml", text))
    assert len(found) == 3
    assert any("'no-bx' is not one of" in p and "did you mean 'no-box'" in p for p in found)
    assert any("fail_above = 1.5 is outside the range of toy_share [0.0, 1.0]" in p for p in found)
    assert any("unknown metric 'nope'" in p for p in found)


def test_warn_level_must_be_stricter_than_fail_level(toy_metric, write):
    path = write("p.yaml", TOY_POLICY.replace("warn_above: 0.6", "warn_above: 0.95"))
    assert problems_of(path) == ["p.yaml:7:5: warn_above (0.95) must be less than fail_above (0.9)"]


def test_threshold_needs_exactly_one_fail_level(toy_metric, write):
    path = write(
        "p.yaml", TOY_POLICY.replace("{fail_above: 0.9, warn_above: 0.6, compare: estimate}", "{warn_above: 0.6}")
    )
    assert problems_of(path) == ["p.yaml:7:5: give exactly one of fail_above or fail_below"]


def test_version_given_as_number_asks_for_quotes_around_the_text_as_written(toy_metric, write):
    path = write("p.yaml", TOY_POLICY.replace('version: "1"', "version: 1.10"))
    (problem,) = problems_of(path)
    # Not "quote it: '1.1'": that would change the version 1.10 to 1.1.
    assert problem.endswith(
        "metadata.version: input should be a valid string (got 1.1); quote it as you wrote it: unquoted, YAML "
        "reads a number (1.10 becomes 1.1)"
    )


def test_yaml_no_does_not_become_false(toy_metric, write):
    path = write("p.yaml", TOY_POLICY + "    enabled: no\n")
    (problem,) = problems_of(path)
    assert "enabled" in problem and "'no'" in problem


def test_duplicate_rule_ids_are_errors(toy_metric, write):
    rule = TOY_POLICY.split("rules:\n", 1)[1]
    path = write("p.yaml", TOY_POLICY + rule)
    assert problems_of(path) == ["p.yaml:8:5: duplicate rule id 'male-share' (first at rule 1)"]


def test_expired_waiver_is_an_error(toy_metric, write):
    text = TOY_POLICY + "waivers:\n  - {rule: male-share, reason: known, approved_by: DPO, expires: 2026-01-31}\n"
    found = problems_of(write("p.yaml", text), today=dt.date(2026, 2, 1))
    assert found == ["p.yaml:9:57: waiver for rule 'male-share' expired on 2026-01-31: renew it or remove it"]


def test_live_waiver_is_accepted(toy_metric, write):
    text = TOY_POLICY + "waivers:\n  - {rule: male-share, reason: known, approved_by: DPO, expires: 2026-01-31}\n"
    loaded = load_policy(write("p.yaml", text), today=dt.date(2026, 1, 31))
    assert loaded.policy.waivers[0].approved_by == "DPO"


def test_waiver_for_unknown_rule_gets_a_suggestion(toy_metric, write):
    text = TOY_POLICY + "waivers:\n  - {rule: male-shar, reason: known, approved_by: DPO, expires: 2099-01-01}\n"
    (problem,) = problems_of(write("p.yaml", text))
    assert "waiver names unknown rule 'male-shar' (did you mean 'male-share'?)" in problem


def test_a_waiver_with_an_empty_reason_does_not_hide_the_policys_other_problems(toy_metric, write):
    text = TOY_POLICY + "waivers:\n  - {rule: male-shar, reason: '', approved_by: DPO, expires: 2026-01-31}\n"
    with pytest.raises(InvalidInput) as exc:
        load_policy(write("p.yaml", text), today=dt.date(2026, 3, 1))
    assert exc.value.exit_code == 2
    assert [str(p) for p in exc.value.problems] == [
        "p.yaml:9:6: waiver names unknown rule 'male-shar' (did you mean 'male-share'?)",
        "p.yaml:9:23: waivers.reason: string should have at least 1 character (got '')",
        "p.yaml:9:53: waiver for rule 'male-shar' expired on 2026-01-31: renew it or remove it",
    ]


def test_a_value_that_should_be_a_mapping_is_told_so_without_the_models_name(toy_metric, write):
    path = write(
        "p.yaml",
        TOY_POLICY.replace("attacker: {model: no-box, quasi_identifiers: [sex], secrets: [income]}", "attacker: 5"),
    )
    with pytest.raises(InvalidInput) as exc:
        load_policy(path)
    assert (exc.value.exit_code, [str(p) for p in exc.value.problems]) == (
        2,
        ["p.yaml:2:1: attacker: expected a mapping (key: value) (got 5)"],
    )


def test_extends_merges_rules_by_id(toy_metric, write):
    write(
        "base.yaml",
        TOY_POLICY + "  - id: female-share\n    metric: toy_share\n"
        "    params: {column: sex, value: Female}\n    threshold: {fail_above: 0.9}\n",
    )
    child = write(
        "child.yaml",
        "extends: base.yaml\nmetadata: {id: child, title: Child, version: '2', owner: t}\n"
        "rules:\n  - id: male-share\n    threshold: {fail_above: 0.8}\n"
        "  - id: new-rule\n    metric: toy_share\n    params: {column: income, value: '>50K'}\n"
        "    threshold: {fail_above: 0.5}\n",
    )
    loaded = load_policy(child)
    assert [r.id for r in loaded.rules] == ["male-share", "female-share", "new-rule"]
    male = loaded.policy.rules[0]
    assert male.threshold.fail_above == 0.8 and male.params == {"column": "sex", "value": "Male"}
    assert loaded.policy.attacker.model == "no-box"  # inherited
    assert [p.name for p, _ in loaded.source.files] == ["child.yaml", "base.yaml"]


def test_problem_in_an_extended_rule_points_at_the_file_that_wrote_it(toy_metric, write):
    write("base.yaml", TOY_POLICY.replace("value: Male", "vlue: Male"))
    child = write("child.yaml", "extends: base.yaml\nmetadata: {id: c, title: C, version: '1', owner: t}\n")
    found = problems_of(child)
    assert found and all(p.startswith("base.yaml:6:") for p in found)


def test_extends_cycle_is_reported(toy_metric, write):
    write("a.yaml", "extends: b.yaml\n" + TOY_POLICY)
    b = write("b.yaml", "extends: a.yaml\n" + TOY_POLICY)
    (problem,) = problems_of(b)
    assert "extends cycle" in problem


def test_disabled_rule_is_not_evaluated(toy_metric, write):
    path = write(
        "p.yaml",
        TOY_POLICY + "    enabled: false\n  - id: other\n    metric: toy_share\n"
        "    params: {column: sex, value: Female}\n    threshold: {fail_above: 0.9}\n",
    )
    assert [r.id for r in load_policy(path).rules] == ["other"]


def test_metric_needing_more_knowledge_than_granted_is_refused(toy_metric, write):
    toy_metric.knowledge.__class__  # frozenset of Knowledge
    from policycheck.metrics import registry
    from policycheck.metrics.base import Knowledge

    spec = registry._METRICS["toy_share"]
    registry._METRICS["toy_share"] = spec.__class__(**{**spec.__dict__, "knowledge": frozenset({Knowledge.ORIGINAL})})
    (problem,) = problems_of(write("p.yaml", TOY_POLICY))
    assert "assumes the attacker knows every original record, secrets included" in problem
    assert "'no-box' attacker model does not grant" in problem


def test_columns_named_by_the_policy_must_exist(toy_metric, write, toy_release):
    release = load_manifest(toy_release["manifest"])
    text = TOY_POLICY.replace("column: sex", "column: sexx").replace("[income]", "[incme]")
    found = problems_of(write("p.yaml", text), release)
    assert any("column 'sexx' is not in the release (did you mean 'sex'?)" in p for p in found)
    assert any("column 'incme' is not in the release (did you mean 'income'?)" in p for p in found)


# --- checks of params and thresholds against the metric and the release, before running

LINKAGE = """\
metadata: {id: t, title: T, version: "1", owner: tests}
attacker: {model: maximum-knowledge, quasi_identifiers: [age, sex], secrets: [income]}
rules:
  - id: misled
    metric: linkage_consistently_misled
    params: {secret: age}
    threshold: {fail_above: 0.5}
"""


def test_threshold_in_the_unsafe_direction_is_refused(write):
    assert problems_of(write("p.yaml", LINKAGE)) == [
        "p.yaml:7:17: higher is safer for linkage_consistently_misled: a rule fails when the value is too low; "
        "use fail_below (and warn_below)"
    ]


def test_fail_below_on_a_higher_is_riskier_metric_is_refused(toy_metric, write):
    path = write("p.yaml", TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_below: 0.1"))
    assert problems_of(path) == [
        "p.yaml:7:17: higher is riskier for toy_share: a rule fails when the value is too high; "
        "use fail_above (and warn_above)"
    ]


def test_categorical_linkage_secret_without_an_order_is_refused_against_a_release(write, toy_release):
    text = LINKAGE.replace("{secret: age}", "{secret: income}").replace("fail_above", "fail_below")
    release = load_manifest(toy_release["manifest"])
    assert problems_of(write("p.yaml", text), release) == [
        "p.yaml:6:14: secret column 'income' is categorical without an order, so no range of its values can be "
        "narrowed; give its categories lowest first in params.orders, or choose a numeric or ordinal secret"
    ]


def test_categorical_linkage_secret_with_an_order_is_accepted(write, toy_release):
    text = LINKAGE.replace("{secret: age}", "{secret: income, orders: {income: ['<=50K', '>50K']}}")
    load_policy(write("p.yaml", text.replace("fail_above", "fail_below")), load_manifest(toy_release["manifest"]))


def test_reconstruction_secret_not_declared_is_refused_against_a_release(write, toy_release):
    text = (
        LINKAGE.replace("model: maximum-knowledge", "model: partially-informed")
        .replace("linkage_consistently_misled", "reconstruction_accuracy")
        .replace("{secret: age}", "{secret: sex}")
    )
    assert problems_of(write("p.yaml", text), load_manifest(toy_release["manifest"])) == [
        "p.yaml:6:14: secret 'sex' is not among the policy's declared secrets (income): declare it under "
        "attacker.secrets or attack one of them"
    ]


def test_column_param_naming_an_id_column_says_so(toy_metric, write, toy_release):
    import dataclasses

    release = load_manifest(toy_release["manifest"])
    release = dataclasses.replace(release, roles={"age": "numeric", "sex": "id", "income": "categorical"})
    message = (
        "column 'sex' is declared type id: id columns enter no attack, query or distance; choose an analysed column"
    )
    # The attacker's quasi-identifier and the rule's column param.
    assert problems_of(write("p.yaml", TOY_POLICY), release) == [f"p.yaml:2:47: {message}", f"p.yaml:6:14: {message}"]


def test_missing_holdout_is_reported_with_the_other_problems(toy_metric, write, toy_release):
    text = toy_release["manifest"].read_text().replace("holdout: holdout.csv\n", "")
    toy_release["manifest"].write_text(text)
    policy = """\
metadata: {id: t, title: T, version: "1", owner: tests}
attacker: {model: no-box}
rules:
  - {id: dcr, metric: dcr_share, threshold: {fail_above: 0.55}}
  - {id: toy, metric: toy_share, params: {column: sexx, value: Male}, threshold: {fail_above: 0.5}}
"""
    found = problems_of(write("p.yaml", policy), load_manifest(toy_release["manifest"]))
    assert found == [
        "p.yaml:4:15: rule 'dcr': metric 'dcr_share' needs a holdout set and the release has none",
        "p.yaml:5:43: column 'sexx' is not in the release (did you mean 'sex'?)",
    ]


def test_on_inconclusive_takes_fail_or_warn(toy_metric, write):
    path = write("p.yaml", TOY_POLICY.replace("rules:", "on_inconclusive: ignore\nrules:"))
    assert problems_of(path) == ["p.yaml:3:1: on_inconclusive: 'ignore' is not one of 'fail' or 'warn'"]


def test_a_loaded_policy_is_validated_against_a_release_with_the_places_of_its_problems(toy_metric, write, toy_release):
    from policycheck.policy.load import validate_for_release

    loaded = load_policy(write("p.yaml", TOY_POLICY.replace("column: sex", "column: sexe")))
    with pytest.raises(InvalidInput) as exc:
        validate_for_release(loaded, load_manifest(toy_release["manifest"]))
    assert [str(p) for p in exc.value.problems] == [
        "p.yaml:6:14: column 'sexe' is not in the release (did you mean 'sex'?)"
    ]


def test_a_loaded_policy_valid_for_a_release_keeps_its_params(toy_metric, write, toy_release):
    from policycheck.policy.load import validate_for_release

    loaded = validate_for_release(load_policy(write("p.yaml", TOY_POLICY)), load_manifest(toy_release["manifest"]))
    assert loaded.params["male-share"].column == "sex"


def test_a_rule_refused_for_one_field_still_has_its_metric_and_params_checked(toy_metric, write):
    policy = TOY_POLICY.replace("    metric: toy_share\n", "    metric: toy_shar\n    rationale: [5]\n")
    policy += "  - {id: second, metric: toy_share, rationale: [5], params: {colum: sex}, threshold: {fail_above: 1}}\n"
    assert problems_of(write("p.yaml", policy)) == [
        "p.yaml:5:5: unknown metric 'toy_shar' (did you mean 'toy_share'?)",
        "p.yaml:6:5: rules.rationale: input should be a valid string",
        "p.yaml:9:37: rules.rationale: input should be a valid string",
        "p.yaml:9:53: missing required key 'column'",
        "p.yaml:9:53: missing required key 'value'",
        "p.yaml:9:62: unknown key 'colum' (did you mean 'column'?)",
    ]
