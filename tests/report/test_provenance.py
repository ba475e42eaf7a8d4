"""Provenance an auditor can re-check: library versions, and the hash of every file the run read,
the DP ledger and the SDV metadata file included; verify names the file that changed."""

import hashlib
import json
import platform
import sys
from importlib.metadata import version

import pytest
from click.testing import CliRunner

from policycheck.interfaces.cli import cli

LEDGER = "ledger_version: 1\nreleases:\n  - id: old\n    mechanisms:\n      - {mechanism: laplace, epsilon: 0.2}\n"
METADATA = {
    "columns": {"age": {"sdtype": "numerical"}, "sex": {"sdtype": "categorical"}, "income": {"sdtype": "categorical"}}
}
POLICY = """\
metadata: {id: toy, title: Toy policy, version: "1", owner: tests}
attacker: {model: no-box, quasi_identifiers: [sex], secrets: [income]}
rules:
  - {id: budget, metric: dp_total_epsilon, params: {ledger: l.yaml, delta: 1.0e-6}, threshold: {fail_above: 5}}
"""


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def checked(write, toy_release):
    ledger = write("l.yaml", LEDGER)
    metadata = write("metadata.json", json.dumps(METADATA))
    manifest = toy_release["manifest"]
    manifest.write_text(manifest.read_text() + "metadata: metadata.json\n")
    result = invoke("check", write("p.yaml", POLICY), "-r", manifest, "-o", "out", "-q", "--executor", "serial")
    assert result.exit_code == 0, result.output
    return json.loads(open("out/report.json").read()), ledger, metadata


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_provenance_names_the_version_of_every_library_that_computes_a_number(checked):
    prov = checked[0]["provenance"]
    for name in ("numpy", "pandas", "scipy", "highspy", "numba", "scikit-learn", "dp-accounting", "pyarrow"):
        assert prov["libraries"][name] == version(name)
    assert prov["python"] == sys.version.split()[0] and prov["platform"] == platform.platform()


def test_provenance_hashes_the_ledger_and_the_metadata_file(checked):
    report, ledger, metadata = checked
    prov = report["provenance"]
    assert prov["referenced_files"] == [{"path": "l.yaml", "sha256": sha256(ledger)}]
    assert prov["metadata"] == {"path": "metadata.json", "sha256": sha256(metadata)}


def test_verify_fails_naming_the_ledger_when_it_changed(checked):
    report, ledger, _ = checked
    ledger.write_text(LEDGER.replace("epsilon: 0.2", "epsilon: 0.3"))
    result = invoke("verify", "out/report.json", "--root", ".", "--executor", "serial", "-q")
    assert result.exit_code == 1
    assert (
        f"DIFFERS  file l.yaml: sha256 {report['provenance']['referenced_files'][0]['sha256']} -> {sha256(ledger)}"
        in result.output
    )
    assert "DIFFERS  rule budget: value" in result.output  # the total epsilon grew by 0.1


def test_verify_fails_naming_the_metadata_file_when_it_changed(checked):
    report, _, metadata = checked
    metadata.write_text(json.dumps(METADATA, indent=2))  # the same roles: only the hash differs
    result = invoke("verify", "out/report.json", "--root", ".", "--executor", "serial", "-q")
    assert result.exit_code == 1
    assert (
        f"DIFFERS  file metadata.json: sha256 {report['provenance']['metadata']['sha256']} -> {sha256(metadata)}"
        in result.output
    )
