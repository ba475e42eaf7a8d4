"""CLI conventions users know from ruff, conftest and pytest: several policies and globs in
one run, [tool.policycheck] in pyproject.toml, reports on stdout, quiet closed pipes,
colour only where wanted, the user's umask, compressed and columnar inputs."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY

from policycheck.interfaces.cli import cli, colour_choice

FAILING = TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_above: 0.5").replace(
    "id: toy,", "id: toy-strict,"
)


def invoke(*args, env=None):
    return CliRunner(env=env).invoke(cli, [str(a) for a in args], catch_exceptions=False)


# --- several policies, globs --------------------------------------------------------


def test_several_policies_get_one_report_folder_each_and_the_worst_exit_code(toy_metric, write, toy_release):
    write("policies/lenient.policy.yaml", TOY_POLICY)
    write("policies/strict.policy.yaml", FAILING)
    result = invoke(
        "check",
        "policies/lenient.policy.yaml",
        "policies/strict.policy.yaml",
        "-r",
        toy_release["manifest"],
        "-o",
        "out",
        "-q",
    )
    assert result.exit_code == 1  # lenient warns (0), strict fails (1)
    assert json.loads(Path("out/lenient/report.json").read_text())["verdict"] == "warn"
    assert json.loads(Path("out/strict/report.json").read_text())["verdict"] == "fail"
    assert "2 policies checked; exit code 1 (the worst)" in result.output


def test_a_glob_the_shell_did_not_expand_is_expanded(toy_metric, write, toy_release):
    write("policies/a.policy.yaml", TOY_POLICY)
    write("policies/b.policy.yaml", TOY_POLICY)
    result = invoke("check", "policies/*.policy.yaml", "-r", toy_release["manifest"], "-o", "out", "-q")
    assert result.exit_code == 0
    assert sorted(os.listdir("out")) == ["a", "b"]


def test_one_invalid_policy_stops_the_run_before_any_computation(toy_metric, write, toy_release):
    write("policies/good.policy.yaml", TOY_POLICY)
    write("policies/bad.policy.yaml", TOY_POLICY.replace("column: sex", "column: gender"))
    result = invoke("check", "policies/*.policy.yaml", "-r", toy_release["manifest"], "-o", "out", "-q")
    assert result.exit_code == 2
    assert result.stderr.strip() == "policies/bad.policy.yaml:6:14: column 'gender' is not in the release"
    assert not Path("out").exists()


def test_a_glob_matching_nothing_is_exit_2(toy_release):
    result = invoke("check", "nowhere/*.policy.yaml", "-r", toy_release["manifest"], "-q")
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: nowhere/*.policy.yaml: no policy file matches this pattern"


# --- pyproject.toml -----------------------------------------------------------------


PYPROJECT = """\
[project]
name = "my-release"

[tool.policycheck]
policies = ["policies/*.policy.yaml"]
release = "{manifest}"
output = "audit"
formats = ["json", "sarif"]
seed = 42
fail-on-warn = true
"""


def test_check_takes_its_settings_from_pyproject(toy_metric, write, toy_release):
    write("policies/toy.policy.yaml", TOY_POLICY)
    write("pyproject.toml", PYPROJECT.format(manifest=toy_release["manifest"]))
    result = invoke("check", "-q")
    assert result.exit_code == 1  # the toy policy warns, and fail-on-warn is on
    assert sorted(os.listdir("audit")) == ["report.json", "report.sarif"]
    assert json.loads(Path("audit/report.json").read_text())["provenance"]["seed"] == 42


def test_flags_override_pyproject(toy_metric, write, toy_release):
    write("policies/toy.policy.yaml", TOY_POLICY)
    write("pyproject.toml", PYPROJECT.format(manifest=toy_release["manifest"]))
    result = invoke("check", "-q", "--seed", "7", "--no-fail-on-warn", "-o", "elsewhere", "--format", "md")
    assert result.exit_code == 0
    assert sorted(os.listdir("elsewhere")) == ["report.json", "report.md"]
    assert json.loads(Path("elsewhere/report.json").read_text())["provenance"]["seed"] == 7


def test_pyproject_paths_are_relative_to_its_folder(toy_metric, write, toy_release):
    write("policies/toy.policy.yaml", TOY_POLICY)
    write("pyproject.toml", PYPROJECT.format(manifest=toy_release["manifest"]))
    Path("sub/dir").mkdir(parents=True)
    os.chdir("sub/dir")
    result = invoke("check", "-q")
    assert result.exit_code == 1
    assert Path("../../audit/report.json").is_file()


def test_config_shows_each_setting_and_where_it_came_from(write, toy_release):
    write("pyproject.toml", PYPROJECT.format(manifest="release.yaml"))
    result = invoke("config")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "# pyproject: pyproject.toml"
    assert 'output = "audit"  # pyproject.toml' in lines
    assert "seed = 42  # pyproject.toml" in lines
    assert "# workers is unset  # default" in lines


def test_an_unknown_pyproject_key_is_exit_2_with_a_suggestion(write):
    write("pyproject.toml", "[tool.policycheck]\nfail_on_wran = true\nseed = -1\n")
    result = invoke("config")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: pyproject.toml: [tool.policycheck] fail_on_wran: unknown key (did you mean 'fail-on-warn'?)",
        "error: pyproject.toml: [tool.policycheck] seed: expected an integer >= 0, got -1",
    ]


def test_validate_without_files_validates_the_pyproject_policies(toy_metric, write):
    write("policies/toy.policy.yaml", TOY_POLICY)
    write("pyproject.toml", "[tool.policycheck]\npolicies = 'policies/*.policy.yaml'\n")
    result = invoke("validate")
    assert result.exit_code == 0
    assert result.output.startswith("policies/toy.policy.yaml: ok")


# --- stdout, pipes, colour ----------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit", "md"])
def test_dash_output_prints_the_one_format_on_stdout_and_writes_no_folder(toy_metric, write, toy_release, fmt):
    result = invoke(
        "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "-", "-q", "--format", fmt
    )
    assert result.exit_code == 0
    if fmt in ("json", "sarif"):
        document = json.loads(result.stdout)
        assert document.get("verdict", document.get("version")) in ("warn", "2.1.0")
    elif fmt == "junit":
        assert result.stdout.startswith("<?xml")
    else:
        assert "male-share" in result.stdout
    assert "toy on toy-release" in result.stderr  # the summary moves to stderr
    assert not any(p.is_dir() for p in Path(".").iterdir())  # no report folder


def test_dash_output_refuses_two_formats(toy_metric, write, toy_release):
    result = invoke(
        "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "-", "--format", "json,sarif"
    )
    assert result.exit_code == 2


def test_a_closed_pipe_exits_quietly_with_the_commands_own_code(toy_metric, write, toy_release):
    for out, text in (("old", TOY_POLICY.replace("Male}", "Female}")), ("new", TOY_POLICY)):
        invoke("check", write(f"{out}.yaml", text), "-r", toy_release["manifest"], "-o", out, "-q")
    # The reader closes its end before diff writes a byte (as `| head -0` would).
    for flags, expected in (([], 0), (["--fail-on-worse"], 1)):
        proc = subprocess.Popen(
            [sys.executable, "-m", "policycheck", "diff", "old/report.json", "new/report.json", *flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        proc.stdout.close()
        stderr = proc.stderr.read().decode()
        assert proc.wait() == expected, stderr
        assert stderr == ""


def test_colour_follows_no_color_and_force_color():
    assert colour_choice({}) is None  # click decides: colour on a terminal only
    assert colour_choice({"NO_COLOR": "1"}) is False
    assert colour_choice({"FORCE_COLOR": "1"}) is True
    assert colour_choice({"NO_COLOR": "1", "FORCE_COLOR": "1"}) is False  # no-color.org: NO_COLOR wins


def test_the_summary_is_coloured_only_when_forced_off_a_terminal(toy_metric, write, toy_release):
    policy = write("p.yaml", TOY_POLICY)
    plain = invoke("check", policy, "-r", toy_release["manifest"], "-o", "a", "-q")
    forced = invoke("check", policy, "-r", toy_release["manifest"], "-o", "b", "-q", env={"FORCE_COLOR": "1"})
    assert "\x1b[" not in plain.output
    assert "\x1b[33m\x1b[1mWARN" in forced.output


def test_reports_get_the_users_umask(toy_metric, write, toy_release):
    old = os.umask(0o027)
    try:
        invoke("check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "out", "-q")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat("out/report.json").st_mode) == 0o640


# --- input formats ------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv.gz", ".csv.bz2", ".parquet", ".feather"])
def test_compressed_and_columnar_inputs_read_as_the_csv(toy_release, suffix):
    from policycheck.release.load import read_table

    frame = pd.read_csv(toy_release["original"])
    path = Path(f"original{suffix}")
    if suffix.startswith(".csv"):
        frame.to_csv(path, index=False)
    elif suffix == ".parquet":
        frame.to_parquet(path)
    else:
        frame.to_feather(path)
    pd.testing.assert_frame_equal(read_table(path), read_table(Path(toy_release["original"])))


def test_a_corrupt_gzip_is_one_line(write):
    from policycheck.core.errors import InvalidInput
    from policycheck.release.load import read_table

    with pytest.raises(InvalidInput, match=r"^data.csv.gz: cannot decompress \(gzip\)"):
        read_table(write("data.csv.gz", b"not gzip at all"))
