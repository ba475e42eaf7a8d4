"""Every field of report.json is tamper-evident (issue 16, item 4).

One field at a time is edited (a generated list of every JSON path of a
real report, digests included); ``verify`` must not pass and must name
the edited field. The rendered files beside report.json are edited too.
"""

import copy
import hashlib
import json
from pathlib import Path

import pytest
from conftest import TOY_POLICY

import policycheck.interfaces.verify as verify_module
from policycheck.core.errors import InvalidInput
from policycheck.interfaces.cli import cli
from policycheck.interfaces.verify import verify_report
from policycheck.report.integrity import path_text

BASE = TOY_POLICY.replace('metadata: {id: toy, title: Toy policy, version: "1", owner: tests}\n', "")
POLICY = """\
extends: base.yaml
metadata: {id: toy, title: Toy policy, version: "1", owner: tests, description: tampering}
rules:
  - id: male-share
    metric: toy_share
    params: {column: sex, value: Male}
    threshold: {fail_above: 0.5}
  - id: female-share
    metric: toy_share
    severity: advisory
    rationale: checked by hand
    params: {column: sex, value: Female}
    threshold: {fail_above: 0.9, warn_above: 0.1, compare: upper}
  - id: total-epsilon
    metric: dp_total_epsilon
    params: {delta: 1.0e-5, ledger: ledger.yaml}
    threshold: {fail_above: 5}
waivers:
  - {rule: male-share, reason: pilot only, approved_by: Jane Roe, expires: 2099-01-31, ticket: SEC-1}
"""
LEDGER = """\
ledger_version: 1
releases:
  - id: earlier
    mechanisms: [{mechanism: laplace, epsilon: 0.5}]
"""


def leaves(node, path=()):
    """Every leaf (and empty container) of a JSON document, as (path, value)."""
    if isinstance(node, dict) and node:
        for key, value in node.items():
            yield from leaves(value, (*path, key))
    elif isinstance(node, list) and node:
        for i, value in enumerate(node):
            yield from leaves(value, (*path, i))
    else:
        yield path, node


def tampered(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 + 0.125
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return ["tampered"]
    if isinstance(value, dict):
        return {"tampered": 1}
    return "tampered"


def set_at(doc, path, value):
    node = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def names(path, report):
    """What verify may call the field: its JSON path, or the rule it belongs to."""
    # The field, or the context field holding it (provenance.libraries for one library's version).
    out = [f"{path_text(path[:cut])}:" for cut in range(2, len(path) + 1)] + [f"{path_text(path)}:"]
    out += [f"{path_text(path)}.", f"{path_text(path)}["]  # a key or item added under it
    if path[0] == "rules" and len(path) > 2:
        rule_id = report["rules"][path[1]]["id"]
        out += [f"rule {rule_id}: {path[2]}", f"rule {rule_id}x: removed"]
    if path[:2] == ("provenance", "integrity") and len(path) > 3:
        out.append(path[3])  # a field's digest names the field
    if path[0] in ("verdict", "exit_code"):
        out.append(f"release {path[0]}")
    # An edited hash names the file whose hash it is.
    if path[-1] in ("sha256", "manifest_sha256") or (len(path) > 1 and path[-2] == "manifest"):
        out.append("file ")
    return out


@pytest.fixture
def made(runner_cli, toy_metric, write, toy_release):
    write("base.yaml", BASE)
    write("ledger.yaml", LEDGER)
    write("p.yaml", POLICY)
    result = runner_cli(
        "check",
        "p.yaml",
        "-r",
        toy_release["manifest"],
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
        "--format",
        "json,html,md,junit,sarif",
    )
    assert result.exit_code == 0, result.output
    return Path("out/report.json")


@pytest.fixture
def runner_cli():
    from click.testing import CliRunner

    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def cached_rerun(monkeypatch):
    """The real re-run, memoised on everything it reads, so an edit to any of its inputs re-runs for real."""
    real, cache = verify_module.rerun, {}

    def rerun(report, root, **kwargs):
        key = json.dumps(
            [report["provenance"], report["release"], report["generated_at"], str(root), str(kwargs.get("manifest"))],
            sort_keys=True,
        )
        if key not in cache:
            cache[key] = real(report, root, **kwargs)
        return copy.deepcopy(cache[key])

    monkeypatch.setattr(verify_module, "rerun", rerun)
    return cache


def outcome(path):
    """(passed, text of every difference and problem) of verifying ``path``."""
    try:
        result = verify_report(path, root=Path("."), executor="serial")
    except InvalidInput as exc:
        return False, "\n".join(str(p) for p in exc.problems)
    text = "\n".join(map(str, result.differences)) + "\n" + "\n".join(map(str, result.problems))
    return result.identical, text


def test_the_untouched_report_verifies(made, runner_cli):
    result = runner_cli("verify", made, "--root", ".", "--executor", "serial", "-q")
    assert result.exit_code == 0, result.output


def _sweep(made, every):
    original = json.loads(made.read_text())
    paths = list(leaves(original))
    assert len(paths) > 150  # the whole report
    paths = paths[::every]
    missed = []
    for path, value in paths:
        report = copy.deepcopy(original)
        set_at(report, path, tampered(value))
        made.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        passed, text = outcome(made)
        if passed or not any(name in text for name in names(path, original)):
            missed.append((path_text(path), passed, text[:300]))
    made.write_text(json.dumps(original, indent=2, ensure_ascii=False) + "\n")
    assert not missed, f"{len(missed)} of {len(paths)} edits not caught or not named: {missed[:10]}"
    assert outcome(made)[0]
    return len(paths)


def test_every_fifth_field_edited_fails_verify_naming_it(made, cached_rerun):
    """The default run's share of the sweep below (each edit costs a verify)."""
    assert _sweep(made, every=5) > 30


@pytest.mark.slow
def test_every_field_edited_once_fails_verify_naming_it(made, cached_rerun):
    _sweep(made, every=1)


def sha256_of(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", ["report.html", "report.md", "report.junit.xml", "report.sarif"])
def test_an_edited_rendering_fails_verify_naming_the_file(made, name, cached_rerun):
    target = made.parent / name
    written = sha256_of(target)
    target.write_text(target.read_text().replace("toy", "tox", 1))
    passed, text = outcome(made)
    assert not passed and f"file out/{name}: sha256 {written} -> {sha256_of(target)}" in text


def test_a_rendering_from_another_run_fails_verify(made, runner_cli, toy_release, cached_rerun):
    html = (made.parent / "report.html").read_text()
    runner_cli(
        "check",
        "p.yaml",
        "-r",
        toy_release["manifest"],
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
        "--format",
        "json,html",
    )
    run_id = json.loads(made.read_text())["provenance"]["run_id"]
    assert run_id in (made.parent / "report.html").read_text() and run_id not in html
    written = sha256_of(made.parent / "report.html")
    (made.parent / "report.html").write_text(html)
    passed, text = outcome(made)
    assert not passed and f"file out/report.html: sha256 {written} -> {sha256_of(made.parent / 'report.html')}" in text


def test_an_edited_ledger_is_named(made, cached_rerun):
    Path("ledger.yaml").write_text(LEDGER.replace("0.5", "0.25"))
    passed, text = outcome(made)
    assert not passed and "file ledger.yaml: sha256" in text


def _with_duplicate(node, path, value):
    """JSON text of ``node`` with the key at ``path`` written twice: first ``value``, then the real one."""

    def dump(item, at):
        if isinstance(item, dict):
            members = []
            for key, child in item.items():
                if (*at, key) == path:
                    members.append(f"{json.dumps(key)}: {json.dumps(value)}")
                members.append(f"{json.dumps(key)}: {dump(child, (*at, key))}")
            return "{" + ", ".join(members) + "}"
        if isinstance(item, list):
            return "[" + ", ".join(dump(child, (*at, i)) for i, child in enumerate(item)) + "]"
        return json.dumps(item, ensure_ascii=False)

    return dump(node, ())


def test_a_key_written_twice_anywhere_fails_verify_naming_it(made):
    """Python keeps a duplicated key's last value, a human and other parsers its first (issue 23, item 4)."""
    original = json.loads(made.read_text())
    keys = [
        path[:cut] for path, _ in leaves(original) for cut in range(1, len(path) + 1) if isinstance(path[cut - 1], str)
    ]
    keys = list(dict.fromkeys(keys))[::7]
    assert len(keys) > 30
    missed = []
    for path in keys:
        made.write_text(_with_duplicate(original, path, "forged"))
        passed, text = outcome(made)
        if passed or f"key {path[-1]!r} appears twice in one object" not in text:
            missed.append((path_text(path), text[:200]))
    assert not missed, missed[:5]
