"""SARIF 2.1.0 for code-scanning views: one result per failing or warning rule,
located at the rule's line in the policy file.

The OASIS schema cannot be shipped, so the test validates against a minimal
schema of the fields SARIF 2.1.0 requires, plus the advised ones we emit
(conventions.md section 2), with their enumerations.
"""

import json

import pytest
from jsonschema import Draft7Validator
from test_junit import MIXED

from policycheck.interfaces.check import CheckOptions, check_release
from policycheck.release.load import load_manifest
from policycheck.report.sarif import artifact_uri, build_sarif

MESSAGE = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string", "minLength": 1}}}
LOCATION = {
    "type": "object",
    "required": ["physicalLocation"],
    "properties": {
        "physicalLocation": {
            "type": "object",
            "required": ["artifactLocation"],
            "properties": {
                "artifactLocation": {
                    "type": "object",
                    "required": ["uri"],
                    "properties": {"uri": {"type": "string"}, "index": {"type": "integer", "minimum": 0}},
                },
                "region": {
                    "type": "object",
                    "required": ["startLine"],
                    "properties": {
                        "startLine": {"type": "integer", "minimum": 1},
                        "startColumn": {"type": "integer", "minimum": 1},
                    },
                },
            },
        }
    },
}
LEVEL = {"enum": ["none", "note", "warning", "error"]}
MINIMAL_SARIF_2_1_0 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "$schema": {"type": "string"},
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "notifications": {
                                        "type": "array",
                                        "items": {"type": "object", "required": ["id"]},
                                    },
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "shortDescription": MESSAGE,
                                                "fullDescription": MESSAGE,
                                                "defaultConfiguration": {
                                                    "type": "object",
                                                    "properties": {"level": LEVEL},
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "invocations": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["executionSuccessful"],
                            "properties": {
                                "executionSuccessful": {"type": "boolean"},
                                "exitCode": {"type": "integer"},
                                "toolExecutionNotifications": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["message"],
                                        "properties": {"message": MESSAGE, "level": LEVEL},
                                    },
                                },
                                "toolConfigurationNotifications": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["message"],
                                        "properties": {
                                            "message": MESSAGE,
                                            "level": LEVEL,
                                            "descriptor": {"type": "object", "required": ["id"]},
                                        },
                                    },
                                },
                            },
                        },
                    },
                    "artifacts": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "location": {"type": "object", "required": ["uri"]},
                                "hashes": {"type": "object", "additionalProperties": {"type": "string"}},
                                "roles": {
                                    "type": "array",
                                    "items": {
                                        "enum": [
                                            "analysisTarget",
                                            "attachment",
                                            "responseFile",
                                            "resultFile",
                                            "standardStream",
                                            "tracedFile",
                                            "unmodified",
                                            "modified",
                                            "added",
                                            "deleted",
                                            "renamed",
                                            "uncontrolled",
                                            "driver",
                                            "extension",
                                            "translation",
                                            "taxonomy",
                                            "policy",
                                            "referencedOnCommandLine",
                                            "memoryContents",
                                            "directory",
                                            "userSpecifiedConfiguration",
                                            "toolSpecifiedConfiguration",
                                            "debugOutputFile",
                                        ]
                                    },
                                },
                            },
                        },
                    },
                    "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": 0},
                                "level": LEVEL,
                                "kind": {"enum": ["pass", "fail", "notApplicable", "review", "open", "informational"]},
                                "message": MESSAGE,
                                "locations": {"type": "array", "items": LOCATION},
                                "partialFingerprints": {"type": "object", "additionalProperties": {"type": "string"}},
                                "suppressions": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["kind"],
                                        "properties": {
                                            "kind": {"enum": ["inSource", "external"]},
                                            "status": {"enum": ["accepted", "underReview", "rejected"]},
                                            "justification": {"type": "string"},
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


@pytest.fixture
def report(toy_metric, write, toy_release, tmp_path):
    release = load_manifest(toy_release["manifest"])
    return check_release(
        write("p.yaml", MIXED),
        release,
        tmp_path / "out",
        CheckOptions(executor="serial", seed=3),
        formats=("json", "sarif"),
    )


def results(log) -> dict:
    return {r["ruleId"]: r for r in log["runs"][0]["results"]}


def test_the_minimal_schema_rejects_what_sarif_forbids():
    validator = Draft7Validator(MINIMAL_SARIF_2_1_0)
    assert not validator.is_valid({"version": "2.1.0"})  # runs missing
    assert not validator.is_valid({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})  # driver.name missing
    bad_level = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "fatal"}]}],
    }
    assert not validator.is_valid(bad_level)


def test_sarif_file_validates_against_the_minimal_2_1_0_schema(report, tmp_path):
    log = json.loads((tmp_path / "out" / "report.sarif").read_text())
    assert list(Draft7Validator(MINIMAL_SARIF_2_1_0).iter_errors(log)) == []
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-schema-2.1.0.json")


def test_one_result_per_failing_or_warning_rule_with_its_level(report):
    found = results(build_sarif(report))
    assert {rule: r["level"] for rule, r in found.items()} == {
        "warns": "warning",
        "fails": "error",
        "advisory-fails": "warning",
        "waived": "error",  # still reported, as a suppressed error
    }
    assert all(r["kind"] == "fail" for r in found.values())


def test_results_sit_at_the_rules_line_in_the_policy_file(report):
    found = results(build_sarif(report))
    lines = {rule: r["locations"][0]["physicalLocation"]["region"]["startLine"] for rule, r in found.items()}
    assert lines == {"warns": 8, "fails": 12, "advisory-fails": 16, "waived": 21}
    physical = found["fails"]["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "p.yaml" and physical["region"]["startColumn"] == 5


def test_result_message_states_measurement_and_threshold(report):
    text = results(build_sarif(report))["fails"]["message"]["text"]
    assert text.startswith(
        "Rule fails (toy_share) fails: measured 0.8333 [0.3588, 0.9958]; threshold: fail if > 0.5 (on the estimate)."
    )


def test_a_waiver_is_an_accepted_external_suppression(report):
    (suppression,) = results(build_sarif(report))["waived"]["suppressions"]
    assert suppression["kind"] == "external" and suppression["status"] == "accepted"
    assert (
        suppression["justification"]
        == "Accepted <b>for</b> the pilot (approved by Jane Roe, expires 2099-12-31, ticket PRIV-1)"
    )
    assert "suppressions" not in results(build_sarif(report))["fails"]


def test_every_rule_is_described_in_the_driver(report):
    driver = build_sarif(report)["runs"][0]["tool"]["driver"]
    assert [r["id"] for r in driver["rules"]] == ["passes", "warns", "fails", "advisory-fails", "waived", "errors"]
    assert driver["rules"][3]["defaultConfiguration"]["level"] == "warning"  # advisory
    assert driver["version"] == report["provenance"]["tool_version"]
    for result in results(build_sarif(report)).values():
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_an_unevaluated_rule_is_a_notification_and_the_run_did_not_succeed(report):
    (invocation,) = build_sarif(report)["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 3
    (note,) = invocation["toolExecutionNotifications"]
    assert note["associatedRule"] == {"id": "errors", "index": 5}
    assert note["message"]["text"].endswith("could not be evaluated: the toy evaluator was told to fail")


def test_a_passing_release_has_no_results_and_succeeds(report):
    passing = json.loads(json.dumps(report))
    passing["rules"] = [r for r in passing["rules"] if r["id"] == "passes"]
    passing.update(verdict="pass", exit_code=0)
    run = build_sarif(passing)["runs"][0]
    assert run["results"] == []
    assert run["invocations"][0]["executionSuccessful"] is True and run["invocations"][0]["exitCode"] == 0


def test_artifacts_carry_the_sha256_of_every_file(report):
    artifacts = build_sarif(report)["runs"][0]["artifacts"]
    prov = report["provenance"]
    expected = [prov["policy_files"][0], prov["manifest"], *prov["data_files"]]
    assert [(a["location"]["uri"], a["hashes"]["sha-256"]) for a in artifacts] == [
        (f["path"], f["sha256"]) for f in expected
    ]
    assert artifacts[0]["roles"] == ["analysisTarget", "userSpecifiedConfiguration"]


@pytest.mark.parametrize(
    "path, uri",
    [
        ("policies/demo.policy.yaml", "policies/demo.policy.yaml"),
        ("my policies/a b.yaml", "my%20policies/a%20b.yaml"),
        ("/srv/data/original.csv", "file:///srv/data/original.csv"),
        ("C:\\data\\x.csv", "file:///C:/data/x.csv"),
    ],
)
def test_paths_become_uri_references(path, uri):
    assert artifact_uri(path) == uri


def test_check_writes_junit_and_sarif_when_asked(toy_metric, write, toy_release):
    import os

    from click.testing import CliRunner
    from conftest import TOY_POLICY

    from policycheck.interfaces.cli import cli

    result = CliRunner().invoke(
        cli,
        [
            "check",
            str(write("p.yaml", TOY_POLICY)),
            "-r",
            str(toy_release["manifest"]),
            "-o",
            "out",
            "-q",
            "--executor",
            "serial",
            "--format",
            "junit,sarif",
        ],
    )
    assert result.exit_code == 0
    assert sorted(os.listdir("out")) == ["report.json", "report.junit.xml", "report.sarif"]
    log = json.loads(open("out/report.sarif").read())
    assert list(Draft7Validator(MINIMAL_SARIF_2_1_0).iter_errors(log)) == []
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["male-share"]  # it warns


#: What decision.untested_gaps says of a policy whose only membership rule is 'passes' (attacker no-box).
SINGLE_RECORDS = (
    "No rule attacks single records: passes measures the release as a whole, and such tests pass releases that "
    'expose a few records (Yao et al., "The DCR Delusion", 2025). A membership_inference_advantage rule plays the '
    "membership game against the records most at risk, re-running the synthesizer (its attacker knows the original "
    "records: maximum-knowledge)."
)
#: ... and of the toy release's declared epsilon, which no rule of MIXED tests.
DP_CLAIM = (
    "Synthetic set 'synthetic[0]' (epsilon 1) declares differential privacy, and no rule tests the claim: a claim "
    "is audited by attacking the synthesizer itself, not one release of it (Annamalai, Ganev and De Cristofaro, "
    "USENIX Security 2024). A dp_epsilon_excess_membership rule with test: game plays the membership game against "
    "it (dp_epsilon_excess_attribute, the attribute game)."
)


def test_what_the_policy_leaves_untested_is_a_configuration_note_per_gap(report):
    changed = json.loads(json.dumps(report))
    changed["rules"][0]["release_level_membership"] = True  # 'passes' counted a release-level membership rule
    log = build_sarif(changed)
    Draft7Validator(MINIMAL_SARIF_2_1_0).validate(log)
    run = log["runs"][0]
    assert run["invocations"][0]["toolConfigurationNotifications"] == [
        {"level": "note", "descriptor": {"id": "not-tested/single-records"}, "message": {"text": SINGLE_RECORDS}},
        {"level": "note", "descriptor": {"id": "not-tested/dp-claim-not-attacked"}, "message": {"text": DP_CLAIM}},
    ]
    assert [n["id"] for n in run["tool"]["driver"]["notifications"]] == [
        "not-tested/single-records",
        "not-tested/dp-claim-not-attacked",
    ]
    assert run["properties"]["notTested"] == ["single-records", "dp-claim-not-attacked"]
    assert run["invocations"][0]["executionSuccessful"] is False  # the 'errors' rule's, not the notes'


def test_a_policy_that_leaves_nothing_untested_has_no_configuration_note(report):
    claimless = json.loads(json.dumps(report))
    for dataset in claimless["release"]["datasets"]:
        dataset["synthesizer"] = None
    run = build_sarif(claimless)["runs"][0]
    assert "toolConfigurationNotifications" not in run["invocations"][0]
    assert run["tool"]["driver"]["notifications"] == [] and run["properties"]["notTested"] == []
