"""Nothing that is not a regular file is read, and no capped file is read past its cap (issue 23, items 2 and 3).

A FIFO blocks the reader until someone writes to it; ``/dev/zero`` never
ends; a sparse file of 2 GB costs nothing on disk and everything in memory.
As a policy, manifest, ledger, SDV metadata file, data file, report,
pyproject.toml or git metadata file, each must be refused with one line
naming the file and exit 2, at once. Every command runs under an alarm: a
hang fails the test instead of stalling the suite.
"""

import os
import signal
import socket
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY

from policycheck.interfaces.cli import cli

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFOs, /dev and /proc")


class Hung(BaseException):
    """A command did not return in time (BaseException: the CLI's guard must not turn it into exit 3)."""


@pytest.fixture(autouse=True)
def alarm():
    def ring(signum, frame):
        raise Hung("the command hung")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _run(*args):
    try:
        result = CliRunner().invoke(cli, [str(a) for a in args])
    except Hung:
        pytest.fail(f"policycheck {' '.join(map(str, args))} hung")
    return result.exit_code, result.stdout, result.stderr


def _bytes_read() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def make(kind: str, path: Path) -> Path:
    """Put a file of ``kind`` at ``path``: fifo, zero (a link to /dev/zero), null, socket, directory, sparse."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "null":
        path.symlink_to("/dev/null")
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif kind == "directory":
        path.mkdir()
    elif kind == "sparse":
        with open(path, "wb") as fh:
            fh.truncate(2 * 1024**3)  # 2 GB of holes: nothing on disk
    return path


WORDS = {
    "fifo": "a FIFO (named pipe)",
    "zero": "a character device",
    "null": "a character device",
    "socket": "a socket",
    "directory": "a directory",
}
KINDS = list(WORDS)


def _one_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line and not line.endswith(("problem found", "problems found"))]
    assert len(lines) == 1, err
    return lines[0].removeprefix("error: ")


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_as_policy_is_refused_at_once(write, kind):
    make(kind, Path("p.yaml"))
    for command in ("validate", "plan"):
        code, _, err = _run(command, "p.yaml")
        assert code == 2 and _one_error(err) == f"p.yaml: policy path is {WORDS[kind]}, not a regular file"


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_as_manifest_is_refused_at_once(toy_metric, write, kind):
    write("p.yaml", TOY_POLICY)
    make(kind, Path("r.yaml"))
    code, _, err = _run("validate", "p.yaml", "-r", "r.yaml")
    assert code == 2 and _one_error(err) == f"r.yaml: release manifest path is {WORDS[kind]}, not a regular file"


@pytest.mark.parametrize("suffix", ["csv", "csv.gz", "parquet", "feather"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_as_data_is_refused_at_once(toy_metric, write, toy_release, kind, suffix):
    write("p.yaml", TOY_POLICY)
    make(kind, Path(f"s.{suffix}"))
    code, _, err = _run(
        "check",
        "p.yaml",
        "--original",
        toy_release["original"],
        "--synthetic",
        f"s.{suffix}",
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
    )
    assert code == 2 and _one_error(err) == f"s.{suffix}: data path is {WORDS[kind]}, not a regular file"
    assert not Path("out").exists()


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_as_ledger_is_refused_at_the_rule(write, kind):
    write(
        "p.yaml",
        'metadata: {id: x, title: X, version: "1", owner: o}\n'
        "attacker: {model: maximum-knowledge, quasi_identifiers: [sex], secrets: [income]}\n"
        "rules:\n  - id: eps\n    metric: dp_total_epsilon\n"
        "    params: {delta: 1.0e-5, ledger: l.yaml}\n    threshold: {fail_above: 5}\n",
    )
    make(kind, Path("l.yaml"))
    code, _, err = _run("validate", "p.yaml")
    assert code == 2 and _one_error(err).startswith("p.yaml:6:29: ")
    assert f"l.yaml: ledger path is {WORDS[kind]}, not a regular file" in err


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_as_sdv_metadata_is_refused(toy_metric, write, toy_release, kind):
    write("p.yaml", TOY_POLICY)
    make(kind, Path("m.json"))
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
    assert code == 2 and _one_error(err) == f"m.json: metadata path is {WORDS[kind]}, not a regular file"


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_as_report_is_refused_by_verify_and_diff(write, kind):
    make(kind, Path("report.json"))
    code, _, err = _run("verify", "report.json", "-q")
    assert code == 2 and _one_error(err) == f"report.json: report path is {WORDS[kind]}, not a regular file"
    code, _, err = _run("diff", "report.json", "report.json")
    assert code == 2 and _one_error(err) == f"report.json: report path is {WORDS[kind]}, not a regular file"


@pytest.mark.parametrize("kind", ["fifo", "zero", "socket"])
def test_a_special_pyproject_is_refused(write, kind):
    make(kind, Path("pyproject.toml"))
    code, _, err = _run("config")
    assert code == 2 and _one_error(err) == f"pyproject.toml: pyproject path is {WORDS[kind]}, not a regular file"


@pytest.mark.parametrize(
    "name, kind",
    [
        *[
            (name, kind)
            for name in ("HEAD", "packed-refs", "commondir")
            for kind in ("fifo", "zero", "socket", "directory")
        ],
        # A loose ref that is a folder is not refused: git then looks in packed-refs, and so do we.
        *[("refs/heads/main", kind) for kind in ("fifo", "zero", "socket")],
    ],
)
def test_special_git_metadata_is_refused_before_computing(toy_metric, write, toy_release, name, kind):
    write("p.yaml", TOY_POLICY)
    git = Path(".git")
    (git / "refs" / "heads").mkdir(parents=True)
    if name != "HEAD":
        (git / "HEAD").write_text("ref: refs/heads/main\n")
    make(kind, git / name)
    code, _, err = _run("check", "p.yaml", "-r", toy_release["manifest"], "-o", "out", "-q", "--executor", "serial")
    assert code == 2 and _one_error(err) == f".git/{name}: git metadata path is {WORDS[kind]}, not a regular file"
    assert not Path("out").exists()


@pytest.mark.parametrize(
    "what, args",
    [
        ("policy", ("validate", "p.yaml")),
        ("release manifest", ("validate", "q.yaml", "-r", "p.yaml")),
        ("report", ("verify", "p.yaml", "-q")),
    ],
)
def test_a_sparse_capped_file_is_refused_without_reading_it(toy_metric, write, what, args):
    write("q.yaml", TOY_POLICY)
    make("sparse", Path("p.yaml"))
    before = _bytes_read()
    code, _, err = _run(*args)
    assert code == 2 and "p.yaml: " in _one_error(err) and "is larger than" in err
    assert _bytes_read() - before < 4_000_000  # module imports aside, nothing of the 2 GB


def test_a_sparse_csv_is_refused_after_one_block(toy_metric, write, toy_release):
    write("p.yaml", TOY_POLICY)
    make("sparse", Path("s.csv"))
    before = _bytes_read()
    code, _, err = _run(
        "check",
        "p.yaml",
        "--original",
        toy_release["original"],
        "--synthetic",
        "s.csv",
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
    )
    assert code == 2
    assert _one_error(err) == "s.csv: data file holds a NUL byte at byte 0: it is not CSV text"
    assert _bytes_read() - before < 64_000_000


def test_a_csv_line_longer_than_the_cap_is_refused_while_streaming(toy_metric, write, toy_release, monkeypatch):
    from policycheck.release import csv_read

    monkeypatch.setattr(csv_read, "MAX_LINE_BYTES", 1_000_000)
    write("s.csv", "age,sex,income\n1,Male," + "x" * 3_000_000 + "\n")
    write("p.yaml", TOY_POLICY)
    code, _, err = _run(
        "check",
        "p.yaml",
        "--original",
        toy_release["original"],
        "--synthetic",
        "s.csv",
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
    )
    assert code == 2
    assert _one_error(err) == "s.csv: line 2 is longer than 1000000 bytes: it is not a table of records"
