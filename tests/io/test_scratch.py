"""Scratch folders: a killed check's copy of its training records does not outlive the next check."""

import os
import subprocess
import tempfile
import time

import pytest

from policycheck.io.scratch import UNNAMED_STALE_SECONDS, remove_stale_scratch, scratch_folder


@pytest.fixture
def temp_root(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def _left(root, name):
    folder = root / name
    folder.mkdir(mode=0o700)
    (folder / "input.csv").write_text("age,income\n37,>50K\n")
    return folder


def test_a_folder_whose_check_has_ended_is_removed(temp_root):
    ended = subprocess.Popen(["true"])
    ended.wait()
    left = _left(temp_root, f"policycheck-synth-{ended.pid}-abcd1234")
    remove_stale_scratch()
    assert not left.exists()


def test_a_folder_of_a_running_check_is_kept(temp_root):
    ours = _left(temp_root, f"policycheck-synth-{os.getpid()}-abcd1234")
    parent = _left(temp_root, f"policycheck-synth-{os.getppid()}-abcd1234")
    remove_stale_scratch()
    assert ours.exists() and parent.exists()


def test_a_folder_named_without_a_process_id_is_removed_only_once_old(temp_root):
    young, old = _left(temp_root, "policycheck-synth-xbalv8ki"), _left(temp_root, "policycheck-synth-q1w2e3r4")
    then = time.time() - UNNAMED_STALE_SECONDS - 60
    os.utime(old, (then, then))
    remove_stale_scratch()
    assert young.exists() and not old.exists()


def test_a_scratch_folder_is_private_named_for_its_check_and_gone_after(temp_root):
    with scratch_folder("synth") as folder:
        assert folder.parent == temp_root and folder.name.startswith(f"policycheck-synth-{os.getpid()}-")
        assert folder.stat().st_mode & 0o777 == 0o700
    assert not folder.exists()
