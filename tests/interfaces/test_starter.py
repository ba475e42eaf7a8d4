"""Getting started: ``policycheck init`` and the pre-commit hook other repositories use."""

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from policycheck.interfaces.cli import cli
from policycheck.interfaces.starter import starter_policy, write_starter
from policycheck.metrics import registry
from policycheck.policy.load import load_policy
from policycheck.release.load import load_manifest

REPO = Path(__file__).resolve().parents[2]


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_starter_policy_validates_as_written(tmp_path):
    loaded = load_policy(write_starter(tmp_path / "release.policy.yaml"))
    assert [r.id for r in loaded.rules] == ["dcr-share", "mi-risk"]
    assert loaded.policy.attacker.model == "no-box"


def test_starter_policy_validates_against_a_release(tmp_path, toy_release):
    loaded = load_policy(write_starter(tmp_path / "release.policy.yaml"), load_manifest(toy_release["manifest"]))
    assert len(loaded.rules) == 2


def test_first_line_names_the_schema_relative_to_the_policy(tmp_path):
    path = write_starter(tmp_path / "policies" / "new.policy.yaml")
    assert path.read_text().splitlines()[0] == "# yaml-language-server: $schema=../schemas/policy.schema.json"


def test_schema_may_be_a_url(tmp_path):
    text = starter_policy(tmp_path / "p.policy.yaml", "https://example.org/policy.schema.json")
    assert text.startswith("# yaml-language-server: $schema=https://example.org/policy.schema.json\n")


def test_every_registered_metric_is_offered_in_a_comment(tmp_path):
    text = write_starter(tmp_path / "p.policy.yaml").read_text()
    assert {"dcr_share", "mi_risk"} <= set(registry.metrics())
    for name in registry.metrics():
        assert re.search(rf"^ +(# +)?(- )?metric: {name}$", text, re.M), name


def test_uncommenting_an_offered_rule_gives_a_rule(tmp_path):
    text = write_starter(tmp_path / "p.policy.yaml").read_text()
    block = re.search(r"  # - id: exact-copy-share\n(  #   .*\n)+", text).group(0)
    uncommented = "rules:\n" + block.replace("  # ", "  ").replace("...", "0.05")
    (rule,) = YAML(typ="safe", pure=True).load(uncommented)["rules"]
    assert rule == {"id": "exact-copy-share", "metric": "exact_copy_share", "threshold": {"fail_above": 0.05}}


def test_init_writes_release_policy_yaml_by_default(tmp_path):
    result = invoke("init")
    assert result.exit_code == 0
    assert (tmp_path / "release.policy.yaml").is_file()
    assert "wrote release.policy.yaml" in result.output
    assert "policycheck schema --write schemas" in result.stderr  # the schema it names is not there yet


def test_init_into_a_folder_writes_release_policy_yaml_there(tmp_path):
    (tmp_path / "policies").mkdir()
    assert invoke("init", "policies").exit_code == 0
    assert (tmp_path / "policies" / "release.policy.yaml").is_file()


def test_init_refuses_to_overwrite(tmp_path):
    existing = tmp_path / "mine.policy.yaml"
    existing.write_text("keep me\n")
    result = invoke("init", existing.name)
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: mine.policy.yaml: already exists; not overwritten (choose another path)"
    assert existing.read_text() == "keep me\n"


# --- pre-commit ------------------------------------------------------------------


@pytest.fixture
def hooks():
    return YAML(typ="safe", pure=True).load((REPO / ".pre-commit-hooks.yaml").read_text())


def test_pre_commit_hook_validates_policy_files_only(hooks):
    (hook,) = hooks
    assert {k: hook[k] for k in ("id", "entry", "language", "pass_filenames")} == {
        "id": "policycheck-validate",
        "entry": "policycheck validate",
        "language": "python",
        "pass_filenames": True,
    }
    files = re.compile(hook["files"])
    assert files.search("policies/demo.policy.yaml") and files.search("a.policy.yml")
    assert not files.search("release.yaml") and not files.search("a.policy.yaml.bak")


def test_pre_commit_hook_entry_passes_a_good_policy_and_fails_a_bad_one(hooks, tmp_path):
    # pre-commit runs `entry` with the staged file names appended.
    args = hooks[0]["entry"].split()[1:]
    good = write_starter(tmp_path / "good.policy.yaml")
    bad = tmp_path / "bad.policy.yaml"
    bad.write_text(good.read_text().replace("metric: mi_risk", "metric: mi_rsk"))
    assert invoke(*args, good).exit_code == 0
    result = invoke(*args, good, bad)
    assert result.exit_code == 2
    assert "bad.policy.yaml:" in result.stderr and "did you mean 'mi_risk'" in result.stderr


def test_an_offered_rule_where_higher_is_safer_suggests_fail_below(tmp_path):
    text = write_starter(tmp_path / "p.policy.yaml").read_text()
    block = re.search(r"  # - id: linkage-consistently-misled\n(  #   .*\n)+", text).group(0)
    assert "  #   threshold: {fail_below: ...}\n" in block


def test_a_metric_whose_value_is_a_bound_is_offered_deciding_on_its_value_with_the_reason(tmp_path):
    # Issue 28: the default decides on the interval; a DP claim test's value is already a lower
    # confidence bound, so its offered rule says compare: estimate and why, in its rationale.
    text = write_starter(tmp_path / "p.policy.yaml").read_text()
    block = re.search(r"  # - id: dp-epsilon-excess-membership\n(  #   .*\n)+", text).group(0)
    uncommented = "rules:\n" + block.replace("  # ", "  ").replace("...", "0")
    (rule,) = YAML(typ="safe", pure=True).load(uncommented)["rules"]
    assert rule["threshold"] == {"fail_above": 0, "compare": "estimate"}
    assert rule["rationale"] == registry.get_metric("dp_epsilon_excess_membership").value_is_bound
    assert rule["rationale"].startswith("Decided on the value (compare: estimate): it is already a lower confidence")


def test_the_starter_rules_decide_on_the_interval():
    text = starter_policy(Path("p.policy.yaml"))
    rules = YAML(typ="safe", pure=True).load(text)["rules"]
    assert [r["threshold"].get("compare") for r in rules] == [None, None]
