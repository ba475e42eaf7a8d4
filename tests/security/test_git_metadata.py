"""check and verify read the policy folder's git revision without running git (issue 16, item 3).

A repository's config can name programs git runs on its own; the planted
``core.fsmonitor`` below writes a file whenever git consults it (as
``git status`` does). Neither command may run it.
"""

import json
import shutil
import subprocess

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY

from policycheck.interfaces.cli import cli
from policycheck.io.git_revision import git_revision

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git to build the repository")

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "commit.gpgsign=false"]


def _repo(folder, planted):
    """A repository with one commit, then a config that runs a command when git looks at the work tree."""
    subprocess.run([*GIT, "init", "-q", str(folder)], check=True)
    (folder / "policy.yaml").write_text(TOY_POLICY)
    subprocess.run([*GIT, "-C", str(folder), "add", "policy.yaml"], check=True)
    subprocess.run([*GIT, "-C", str(folder), "commit", "-q", "-m", "policy"], check=True)
    head = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    (folder / "policy.yaml").write_text(TOY_POLICY + "# changed\n")  # a dirty tree makes git status consult fsmonitor
    with open(folder / ".git" / "config", "a") as fh:
        fh.write(f"[core]\n\tfsmonitor = touch {planted}\n")
    return head.stdout.strip()


def test_a_planted_fsmonitor_does_not_run_during_check_or_verify(tmp_path, toy_metric, toy_release):
    planted = tmp_path / "PWNED"
    repo = tmp_path / "repo"
    head = _repo(repo, planted)
    # Sanity: git itself runs the planted command, so the test can fail.
    subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True)
    assert planted.exists()
    planted.unlink()

    runner = CliRunner()
    result = runner.invoke(
        cli,
        [
            "check",
            str(repo / "policy.yaml"),
            "-r",
            str(toy_release["manifest"]),
            "-o",
            "out",
            "-q",
            "--executor",
            "serial",
        ],
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["verify", "out/report.json", "--root", ".", "-q", "--executor", "serial"])
    assert result.exit_code == 0, result.output
    assert not planted.exists()

    assert json.load(open("out/report.json"))["provenance"]["git_revision"] == head


def test_revision_is_read_from_packed_refs_and_from_a_worktree(tmp_path):
    repo = tmp_path / "repo"
    head = _repo(repo, tmp_path / "unused")
    subprocess.run(["git", "-c", "core.fsmonitor=", "-C", str(repo), "pack-refs", "--all"], check=True)
    assert not [p for p in (repo / ".git" / "refs" / "heads").rglob("*") if p.is_file()]  # only packed-refs now
    assert git_revision(repo / "sub" / "folder") == head
    subprocess.run(
        ["git", "-c", "core.fsmonitor=", "-C", str(repo), "worktree", "add", "-q", "--detach", str(tmp_path / "wt")],
        check=True,
    )
    assert (tmp_path / "wt" / ".git").is_file()
    assert git_revision(tmp_path / "wt") == head


def test_no_checkout_has_no_revision(tmp_path):
    (tmp_path / "plain").mkdir()
    assert git_revision(tmp_path / "plain") is None
