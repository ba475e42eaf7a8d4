"""`check`'s own options, as a user gives them: refused with one usage line and exit 2 before anything is read."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from policycheck.interfaces.cli import cli


def check(*args):
    return CliRunner().invoke(cli, ["check", *map(str, args)], prog_name="policycheck")


@pytest.mark.parametrize("formats", ["", "json,", "html,,md"])
def test_an_empty_format_is_refused_with_the_formats_accepted(formats):
    result = check("p.yaml", "--original", "a.csv", "--synthetic", "b.csv", "-o", "out", "--format", formats)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: usage: --format {formats!r}: an empty format; choose from json, html, md, junit, sarif, pdf "
        "(comma-separated) (see `policycheck check --help`)\n"
    )


def test_an_empty_format_is_refused_when_printing_to_stdout_too():
    result = check("p.yaml", "--original", "a.csv", "--synthetic", "b.csv", "-o", "-", "--format", "")
    assert result.exit_code == 2
    assert "--format '': an empty format; choose from json, html" in result.stderr
