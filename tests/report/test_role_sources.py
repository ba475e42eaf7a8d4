"""report.json says where each column's role came from, beside the roles (issue 25)."""

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import TOY_POLICY

from policycheck.interfaces.cli import cli


def test_the_report_lists_each_columns_role_source(toy_metric, write, toy_release):
    toy_release["manifest"].write_text(toy_release["manifest"].read_text() + "columns: {income: categorical}\n")
    write("p.yaml", TOY_POLICY)
    result = CliRunner().invoke(cli, ["check", "p.yaml", "-r", str(toy_release["manifest"]), "-o", "out", "-qq"])
    assert result.exit_code == 0, result.output
    release = json.loads(Path("out/report.json").read_text())["release"]
    assert release["role_sources"] == {
        "age": "inferred from original.csv, holdout.csv, synthetic.csv",
        "sex": "inferred from original.csv, holdout.csv, synthetic.csv",
        "income": "declared in the manifest",
    }


def test_html_and_markdown_group_the_columns_by_where_their_role_came_from(toy_metric, write, toy_release):
    toy_release["manifest"].write_text(toy_release["manifest"].read_text() + "columns: {income: categorical}\n")
    write("p.yaml", TOY_POLICY)
    result = CliRunner().invoke(cli, ["check", "p.yaml", "-r", str(toy_release["manifest"]), "-o", "out", "-qq"])
    assert result.exit_code == 0, result.output
    markdown = Path("out/report.md").read_text()
    assert "- Inferred from original.csv, holdout.csv, synthetic.csv: `age` numeric, `sex` categorical\n" in markdown
    assert "- Declared in the manifest: `income` categorical\n" in markdown
    html = Path("out/report.html").read_text()
    assert "<strong>Columns, roles declared in the manifest:</strong> <code>income</code> categorical</p>" in html


def test_a_report_without_role_sources_groups_its_columns_as_not_recorded():
    from policycheck.report.columns import roles_by_source

    report = {"release": {"roles": {"age": "numeric", "sex": "categorical"}}}
    assert roles_by_source(report) == [("source not recorded", [("age", "numeric"), ("sex", "categorical")])]
