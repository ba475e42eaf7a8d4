"""`plan` shows every column's role and where it came from, and no Python reprs (issue 25)."""

from __future__ import annotations

import json

from click.testing import CliRunner
from conftest import TOY_POLICY

from policycheck.interfaces.cli import cli


def plan(*args):
    return CliRunner().invoke(cli, ["plan", *map(str, args)], prog_name="policycheck")


def test_plan_lists_each_columns_role_its_source_and_the_attackers_view(toy_metric, write, toy_release):
    toy_release["manifest"].write_text(toy_release["manifest"].read_text() + "columns: {income: categorical}\n")
    result = plan(write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = lines.index("columns (role, and where it came from):")
    assert lines[start + 1 : start + 4] == [
        "  age     numeric      inferred from original.csv, holdout.csv, synthetic.csv",
        "  sex     categorical  inferred from original.csv, holdout.csv, synthetic.csv  [quasi-identifier]",
        "  income  categorical  declared in the manifest  [secret]",
    ]


def test_plan_json_lists_the_columns_too(toy_metric, write, toy_release):
    result = plan(
        write("p.yaml", TOY_POLICY),
        "--original",
        "original.csv",
        "--synthetic",
        "synthetic.csv",
        "--column-type",
        "age=categorical",
        "--json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["columns"] == [
        {"name": "age", "role": "categorical", "source": "--column-type", "attacker": None},
        {
            "name": "sex",
            "role": "categorical",
            "source": "inferred from original.csv, synthetic.csv",
            "attacker": "quasi-identifier",
        },
        {
            "name": "income",
            "role": "categorical",
            "source": "inferred from original.csv, synthetic.csv",
            "attacker": "secret",
        },
    ]


def test_plan_text_has_no_python_reprs(write, toy_release):
    policy = write(
        "p.yaml",
        'metadata: {id: p, title: P, version: "1", owner: me}\nattacker: {model: no-box}\nrules:\n'
        "  - {id: dcr, metric: dcr_share, params: {columns: [age, sex]}, threshold: {fail_above: 0.6}}\n",
    )
    result = plan(policy, "-r", toy_release["manifest"])
    assert result.exit_code == 0, result.output
    assert "params: columns=[age, sex], confidence=0.95" in result.output
    assert "gower_dcr(columns=[age, sex], synthetic=0)" in result.output
    assert "('" not in result.output and "{'" not in result.output
