"""The commit a folder is checked out at, read from ``.git`` files without running git.

Running ``git`` in a folder we do not own is running that folder's code: a
repository's config can name programs git starts on its own
(``core.fsmonitor``, hooks, ``core.pager``...). ``check`` and ``verify`` run
in folders they do not own, so they read the revision the way git stores it:

- ``.git`` is a folder, or (worktrees, submodules) a file ``gitdir: PATH``;
- ``HEAD`` holds a commit id (detached) or ``ref: refs/heads/NAME``;
- a ref is a loose file under the common git folder (a worktree's
  ``commondir`` file names it), else a line of ``packed-refs``.

Whether the work tree differs from the commit is not reported: telling
needs the index and every file's stat, which is git's job, and git is what
we must not run.

Each file is opened as every input is (:func:`policycheck.io.files.open_regular`):
a FIFO, device or socket where git keeps a file would block or never end, so
it is refused with one line (exit 2) when the policy is loaded, before any
computation. A loose ref that is a folder is passed over for packed-refs, as
git does. Within ``verify``'s confinement a file outside its folder is not
read: the revision is then unknown.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from policycheck.io import files as fileio

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
#: Symbolic refs followed before giving up (a loop is not a revision).
_MAX_HOPS = 8
#: Bytes read from any one git metadata file (packed-refs can be long).
_MAX_READ = 50_000_000


def _read(path: Path, folder_ok: bool = False) -> str | None:
    """The file's text; None when it is absent, unreadable or out of bounds (or a folder, with ``folder_ok``)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(mode) and folder_ok:
        return None
    if not fileio.may_read(path):
        return None
    try:
        with fileio.open_regular(path, "git metadata") as fh:
            return fh.read(_MAX_READ).decode("utf-8", "replace")
    except OSError:
        return None


def find_git_dir(folder: Path) -> Path | None:
    """The git folder of the checkout holding ``folder``, or None."""
    folder = Path(folder).resolve()
    for candidate in (folder, *folder.parents):
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            text = _read(dot_git) or ""
            first = text.splitlines()[0] if text else ""
            if first.startswith("gitdir:"):
                target = Path(first[len("gitdir:") :].strip())
                target = target if target.is_absolute() else candidate / target
                return target.resolve() if target.is_dir() else None
            return None
    return None


def _common_dir(git_dir: Path) -> Path:
    text = _read(git_dir / "commondir")
    if not text or not text.strip():
        return git_dir
    common = Path(text.strip())
    return (common if common.is_absolute() else git_dir / common).resolve()


def _resolve_ref(ref: str, git_dir: Path, common: Path) -> str | None:
    if ".." in ref.split("/") or not ref.startswith("refs/"):
        return None  # not a ref name git would write
    for base in (git_dir, common):
        text = _read(base / ref, folder_ok=True)
        if text is not None:
            return text.strip()
    packed = _read(common / "packed-refs") or ""
    for line in packed.splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[1].strip() == ref:
            return parts[0].strip()
    return None


def git_revision(folder: Path) -> str | None:
    """HEAD's commit id of the checkout holding ``folder``, or None (no checkout, unborn branch)."""
    git_dir = find_git_dir(folder)
    if git_dir is None:
        return None
    common = _common_dir(git_dir)
    value = (_read(git_dir / "HEAD") or "").strip()
    for _ in range(_MAX_HOPS):
        if _SHA.match(value):
            return value
        if not value.startswith("ref:"):
            return None
        value = _resolve_ref(value[len("ref:") :].strip(), git_dir, common) or ""
    return None
