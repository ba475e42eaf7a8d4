"""A forged report cannot make verify read outside its folder (issue 23, items 1, 4 and 10).

verify used to take its root folder from the report's own
``provenance.working_directory``: a report saying ``working_directory:
/etc`` and naming ``shadow`` made it print the hash of /etc/shadow. The
root is now the folder holding report.json (or ``--root``), and a file
outside it is neither opened nor hashed nor re-run unless
``--show-external``. An audit hook records every file Python opens, so the
tests see reads, not only what is printed.
"""

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY

from policycheck.interfaces.cli import cli

OPENED: list[str] = []
_RECORDING = [False]


def _hook(event, args):
    if _RECORDING[0] and event == "open" and isinstance(args[0], (str, bytes, Path)):
        OPENED.append(str(Path(args[0] if not isinstance(args[0], bytes) else args[0].decode()).resolve()))


sys.addaudithook(_hook)  # a hook cannot be removed: it records only while a test asks


def _run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def _run_recording(*args):
    """Run a command; return (exit code, stdout, stderr, every file Python opened meanwhile)."""
    OPENED.clear()
    _RECORDING[0] = True
    try:
        code, out, err = _run(*args)
    finally:
        _RECORDING[0] = False
    return code, out, err, list(OPENED)


@pytest.fixture
def project(toy_metric, write, toy_release, tmp_path):
    """A checked release: p.yaml, release.yaml and the data in tmp_path, the reports in out/."""
    write("p.yaml", TOY_POLICY)
    code, _, err = _run("check", "p.yaml", "-r", toy_release["manifest"], "-o", "out", "-q", "--executor", "serial")
    assert code == 0, err
    return tmp_path


@pytest.fixture
def secret(tmp_path):
    """A file the report's folder does not hold, as /etc/shadow would be."""
    folder = tmp_path / "etc"
    folder.mkdir()
    (folder / "shadow").write_text("root:$6$secret:19000:0:99999:7:::\n")
    return folder / "shadow"


def _forge(project, secret, edit) -> Path:
    report = json.loads((project / "out" / "report.json").read_text())
    edit(report)
    forged = project / "forged"
    forged.mkdir()
    (forged / "report.json").write_text(json.dumps(report, indent=2))
    return forged / "report.json"


def _names_the_secret(report):
    report["provenance"]["working_directory"] = str(Path("etc").resolve())
    report["provenance"]["data_files"][0]["path"] = "shadow"


@pytest.mark.parametrize("cwd", [".", "etc", "/"])
def test_a_forged_working_directory_does_not_make_verify_read_outside_the_reports_folder(
    project, secret, monkeypatch, tmp_path, cwd
):
    forged = _forge(project, secret, _names_the_secret)
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    monkeypatch.chdir(cwd)
    code, out, err, opened = _run_recording("verify", forged, "-q", "--executor", "serial")
    assert code == 2
    assert digest not in out + err
    # Nothing of the project around the report's folder is opened, the secret least of all.
    assert not [p for p in opened if p.startswith(str(tmp_path.resolve())) and not p.startswith(str(forged.parent))]


@pytest.mark.parametrize("path", ["../etc/shadow", "ETC/shadow", "link/shadow"])
def test_a_forged_path_leaving_the_reports_folder_is_not_read(project, secret, path):
    forged_path = path.replace("ETC", str(secret.parent))

    def edit(report):
        report["provenance"]["data_files"][0]["path"] = forged_path

    forged = _forge(project, secret, edit)
    (forged.parent / "link").symlink_to(secret.parent)  # a link inside the folder to a folder outside it
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    code, out, err, opened = _run_recording("verify", forged, "-q", "--executor", "serial")
    assert code == 2 and "outside forged, the folder verify reads" in err, err
    assert str(secret.resolve()) not in opened
    assert digest not in out + err


def test_a_forged_manifest_in_the_reports_folder_cannot_make_the_rerun_read_outside_it(project, secret):
    def edit(report):
        report["release"]["manifest"] = "release.yaml"
        report["provenance"]["manifest"]["path"] = "release.yaml"
        report["provenance"]["data_files"] = []
        report["provenance"]["policy_files"] = [{"path": "p.yaml", "sha256": "0" * 64}]

    forged = _forge(project, secret, edit)
    shutil.copy(project / "p.yaml", forged.parent / "p.yaml")
    (forged.parent / "release.yaml").write_text(
        f"release: {{id: r}}\noriginal: {secret}\nsynthetic:\n  - path: ../etc/shadow\n"
    )
    code, out, err, opened = _run_recording("verify", forged, "-q", "--executor", "serial")
    assert code == 2 and "outside forged, the folder verify reads" in err, err
    assert str(secret.resolve()) not in opened


def test_verify_reads_a_root_the_auditor_names(project, secret):
    forged = _forge(project, secret, _names_the_secret)
    code, out, err, opened = _run_recording("verify", forged, "-q", "--executor", "serial", "--root", secret.parent)
    # The auditor named /etc: the file is read there (and differs); the others are missing there.
    assert code == 2 and "file shadow: sha256 " in out
    assert str(secret.resolve()) in opened


def test_verify_resolves_the_reports_paths_from_its_own_folder_by_default(project, monkeypatch, tmp_path):
    for name in ("report.json", "report.html", "report.md"):  # the set, moved to the folder the check ran in
        shutil.copy(project / "out" / name, tmp_path / name)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, err = _run("verify", tmp_path / "report.json", "-q", "--executor", "serial")
    assert code == 0, out + err


def test_verify_of_a_report_in_its_output_folder_names_the_root_flag(project):
    code, out, err = _run("verify", "out/report.json", "-q", "--executor", "serial")
    assert code == 2
    assert err.splitlines()[0] == (
        "error: p.yaml: file named in the report is not in out, the folder verify reads "
        "(the report's own): give --root with the folder the check ran in"
    )
    code, out, err = _run("verify", "out/report.json", "-q", "--executor", "serial", "--root", ".")
    assert code == 0, out + err


def _insert_before(text: str, anchor: str, extra: str) -> str:
    at = text.index(anchor)
    return text[:at] + extra + text[at:]


def test_a_duplicated_key_in_report_json_is_refused(project):
    path = project / "out" / "report.json"
    path.write_text(_insert_before(path.read_text(), '"verdict": "warn"', '"verdict": "fail",\n  '))
    code, out, err = _run("verify", path, "-q", "--executor", "serial", "--root", ".")
    assert code == 2
    assert err == (
        "error: out/report.json: not valid JSON: key 'verdict' appears twice in one object "
        "(readers disagree on which one counts)\n"
    )
    code, _, err = _run("diff", path, path)
    assert code == 2 and "key 'verdict' appears twice" in err


@pytest.mark.parametrize(
    "constant, why",
    [
        ("NaN", "NaN is not a JSON number"),
        ("Infinity", "Infinity is not a JSON number"),
        ("-Infinity", "-Infinity is not a JSON number"),
        ("1e999", "1e999 is beyond the floating-point range"),
        ("1" * 5000, "an integer of 5000 digits is more than a report holds"),
    ],
)
def test_a_report_holding_nan_or_overflowing_numbers_is_invalid_not_an_internal_error(project, constant, why):
    path = project / "out" / "report.json"
    report = json.loads(path.read_text())
    text = json.dumps(report, indent=2)
    value = json.dumps(report["rules"][0]["value"])
    path.write_text(text.replace(f'"value": {value}', f'"value": {constant}', 1))
    code, out, err = _run("verify", path, "-q", "--executor", "serial", "--root", ".")
    assert code == 2
    assert err == f"error: out/report.json: not valid JSON: {why}\n"


def test_a_duplicated_key_in_sdv_metadata_is_refused(toy_metric, write, toy_release):
    write("p.yaml", TOY_POLICY)
    write("m.json", '{"columns": {"age": {"sdtype": "numerical"}, "age": {"sdtype": "id"}}}')
    code, _, err = _run(
        "validate",
        "p.yaml",
        "--original",
        toy_release["original"],
        "--synthetic",
        toy_release["synthetic"],
        "--metadata",
        "m.json",
    )
    assert code == 2
    assert err == (
        "error: m.json: not valid JSON: key 'age' appears twice in one object (readers disagree on which one counts)\n"
    )
