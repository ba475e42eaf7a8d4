"""One error style everywhere, as a user sees it on stderr: ``error: FILE: cause`` (or
``file:line:col: message``), one line ending in a newline, the right exit code, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY

from policycheck.interfaces.cli import cli


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], prog_name="policycheck")


def run(*args):
    """The installed entry point in a subprocess: what a user's shell sees."""
    code = "from policycheck.interfaces.cli import main; main()"
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def test_validate_names_a_missing_policy_in_the_one_error_style():
    code, out, err = run("validate", "nope.policy.yaml")
    assert (code, out, err) == (2, "", "error: nope.policy.yaml: policy file not found\n")


def test_validate_counts_problems_only_when_there_are_several():
    result = invoke("validate", "a.yaml", "b.yaml")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: a.yaml: policy file not found\nerror: b.yaml: policy file not found\n2 problems found\n"
    )


def test_an_unknown_option_is_one_usage_line_with_the_suggestion():
    code, out, err = run("check", "--fromat", "json")
    assert (code, out) == (2, "")
    assert err == "error: usage: No such option '--fromat'. Did you mean '--format'? (see `policycheck check --help`)\n"


def test_a_usage_error_inside_a_command_is_the_same_style():
    result = invoke("check", "p.yaml")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: usage: no release: give --release MANIFEST, or --original and --synthetic "
        "(see `policycheck check --help`)\n"
    )


def test_an_unknown_command_is_one_usage_line():
    code, _, err = run("chek")
    assert code == 2
    assert err == (
        "error: usage: No such command 'chek'. (Did you mean one of: 'check', 'schema'?) (see `policycheck --help`)\n"
    )


def test_an_unknown_format_is_named_without_a_python_list():
    result = invoke("check", "p.yaml", "--format", "json,xml", "--original", "o.csv", "--synthetic", "s.csv")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: usage: --format: unknown format 'xml'; choose from json, html,")


def test_an_internal_error_is_said_once_on_one_line_with_exit_3(monkeypatch, write, toy_release):
    from policycheck.policy import load

    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(load, "load_policy", broken)
    write("p.yaml", TOY_POLICY)
    result = invoke("validate", "p.yaml")
    assert result.exit_code == 3
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and result.stderr.endswith("\n")
    assert lines[0].startswith("error: internal error: ZeroDivisionError: division by zero (at ")
    assert lines[0].endswith("; please report it")
    assert "Traceback" not in result.output


DCR_POLICY = """\
metadata: {id: dcr, title: DCR, version: "1", owner: tests}
attacker: {model: no-box}
rules:
  - {id: dcr-share, metric: dcr_share, threshold: {fail_above: 0.6}}
"""


def test_bad_data_is_one_error_line_and_exit_2_before_any_computation(write, toy_release):
    write("p.yaml", DCR_POLICY)
    write("bad.csv", "age,sex,income\n30,Male,<=50K\nold,Female,>50K\n")
    code, out, err = run(
        "check",
        "p.yaml",
        "--original",
        "original.csv",
        "--synthetic",
        "synthetic.csv",
        "--holdout",
        "bad.csv",
        "--column-type",
        "age=numeric",
    )
    assert (code, out) == (2, "")
    assert err.startswith("error: bad.csv: column 'age' is numeric but row 3 holds 'old'")
    assert err.endswith("\n") and err.count("\n") == 1


@pytest.mark.parametrize("command", ["check", "validate", "plan"])
def test_a_broken_policy_is_said_before_any_data_is_read(write, command):
    write("p.yaml", DCR_POLICY.replace("metric: dcr_share", "metric: dcr_sharez"))
    write("bad.csv", "age,sex\n30,Male\n41\n")  # a ragged row: would be exit 2 of its own
    result = invoke(command, "p.yaml", "--original", "bad.csv", "--synthetic", "bad.csv")
    assert result.exit_code == 2
    assert result.stderr == "p.yaml:4:21: unknown metric 'dcr_sharez' (did you mean 'dcr_share'?)\n"


@pytest.mark.parametrize("command", ["check", "validate", "plan"])
def test_a_policy_naming_a_column_the_data_lacks_is_refused_after_reading_it(write, toy_release, toy_metric, command):
    write("p.yaml", TOY_POLICY.replace("quasi_identifiers: [sex]", "quasi_identifiers: [gender]"))
    result = invoke(command, "p.yaml", "--original", "original.csv", "--synthetic", "synthetic.csv")
    assert result.exit_code == 2
    assert "'gender'" in result.stderr and result.stderr.startswith("p.yaml:2:")
