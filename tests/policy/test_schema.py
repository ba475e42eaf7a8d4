import json
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from policycheck.io.yamlio import load_yaml
from policycheck.policy.schema import policy_schema
from policycheck.report.schema import report_schema

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("name", "build"), [("policy.schema.json", policy_schema), ("report.schema.json", report_schema)]
)
def test_committed_schema_is_up_to_date(name, build):
    committed = json.loads((ROOT / "schemas" / name).read_text())
    assert committed == json.loads(json.dumps(build())), (
        f"schemas/{name} is stale: run `policycheck schema --write schemas`"
    )


@pytest.mark.parametrize("build", [policy_schema, report_schema])
def test_schema_is_valid_draft_07(build):
    schema = build()
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    Draft7Validator.check_schema(schema)


@pytest.mark.parametrize("path", sorted((ROOT / "policies").glob("*.policy.yaml")), ids=lambda p: p.name)
def test_example_policies_validate_against_the_schema(path):
    data = load_yaml(path).data
    errors = list(Draft7Validator(policy_schema()).iter_errors(data))
    assert [e.message for e in errors] == []


def test_schema_checks_params_of_the_named_metric():
    schema = policy_schema()
    bad = {
        "metadata": {"id": "x", "title": "x", "version": "1", "owner": "x"},
        "attacker": {"model": "no-box"},
        "rules": [{"id": "r", "metric": "dcr_share", "params": {"no_such_param": 1}, "threshold": {"fail_above": 0.5}}],
    }
    errors = list(Draft7Validator(schema).iter_errors(bad))
    assert any("no_such_param" in e.message for e in errors)


def test_policy_files_carry_the_editor_schema_line():
    for path in (ROOT / "policies").glob("*.policy.yaml"):
        assert path.read_text().startswith("# yaml-language-server: $schema=../schemas/policy.schema.json"), path.name


def test_schema_requires_full_rules_only_in_policies_that_extend_nothing():
    validator = Draft7Validator(policy_schema())
    partial = {"rules": [{"id": "mi-risk", "threshold": {"fail_above": 0.1}}]}
    assert not list(validator.iter_errors({"extends": "base.yaml", **partial}))
    assert list(
        validator.iter_errors(
            {
                "metadata": {"id": "x", "title": "x", "version": "1", "owner": "x"},
                "attacker": {"model": "no-box"},
                **partial,
            }
        )
    )
