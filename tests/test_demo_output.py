"""`policycheck demo` never dirties a checkout: it writes where asked, or to a fresh temporary folder."""

import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from policycheck.core.errors import InvalidInput
from policycheck.interfaces import demo
from policycheck.interfaces.cli import cli


@pytest.fixture
def demo_calls(monkeypatch):
    """Record where the demo would write instead of running it."""
    calls = []
    monkeypatch.setattr(demo, "run_demo", lambda out_dir, **kw: calls.append(Path(out_dir)) or 0)
    return calls


def test_by_default_the_demo_writes_to_a_fresh_temporary_folder(demo_calls):
    for _ in range(2):
        assert CliRunner().invoke(cli, ["demo", "-q", "--keep"]).exit_code == 0
    first, second = demo_calls
    assert first != second and first.is_dir() and not any(first.iterdir())
    assert first.parent == Path(tempfile.gettempdir()) and first.name.startswith("policycheck-demo-")
    assert demo.SAMPLE not in (first, second)
    first.rmdir(), second.rmdir()


def test_the_temporary_folder_is_removed_at_the_end_and_said_so(demo_calls):
    result = CliRunner().invoke(cli, ["demo", "--progress", "none"])
    (folder,) = demo_calls
    assert not folder.exists()
    assert result.output.splitlines()[-1] == (
        f"removed the temporary folder {folder}/ (--keep keeps it, -o DIR writes elsewhere)"
    )


def test_keep_keeps_the_temporary_folder_and_prints_its_path(demo_calls):
    result = CliRunner().invoke(cli, ["demo", "--keep"])
    (folder,) = demo_calls
    assert folder.is_dir()
    assert result.output.splitlines()[-1] == f"releases and reports kept in {folder}/"
    folder.rmdir()


def test_a_folder_given_with_output_is_never_removed(demo_calls, tmp_path):
    (tmp_path / "mine").mkdir()
    result = CliRunner().invoke(cli, ["demo", "-o", str(tmp_path / "mine")])
    assert demo_calls == [tmp_path / "mine"] and (tmp_path / "mine").is_dir()
    assert "removed" not in result.output


def test_qq_prints_nothing(demo_calls):
    result = CliRunner().invoke(cli, ["demo", "-qq"])
    assert result.exit_code == 0 and result.output == ""


def test_output_names_the_folder(demo_calls, tmp_path):
    CliRunner().invoke(cli, ["demo", "-o", str(tmp_path / "mine")])
    assert demo_calls == [tmp_path / "mine"]


def test_refresh_sample_rewrites_the_committed_samples(demo_calls):
    CliRunner().invoke(cli, ["demo", "--refresh-sample"])
    assert demo_calls == [Path(__file__).resolve().parents[1] / "reports" / "demo"]


def test_output_and_refresh_sample_together_are_a_usage_error(tmp_path):
    with pytest.raises(InvalidInput, match="either --output or --refresh-sample"):
        demo.output_folder(tmp_path, refresh_sample=True)
