"""Atomic output: a report set is either the old one or the new one, never a mix.

The files of one run (report.json and its renderings) are written into a
fresh hidden folder beside the output folder, then swapped in with one
atomic rename (``renameat2(RENAME_EXCHANGE)`` on Linux), so a process killed
at any point leaves either the previous complete set or the new one.

An output folder that also holds other things (the demo keeps each
release's data beside its reports) cannot be swapped without moving them;
there each file is replaced atomically, report.json last, and the set is
tied together by the run id and report digest every file carries, which
``verify`` checks. Files are created with the user's umask.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from policycheck.errors import InvalidInput, Problem, display_path

#: Files a report set may hold; an output folder holding anything else is not ours to replace.
REPORT_FILES = ("report.json", "report.html", "report.md", "report.junit.xml", "report.sarif", "report.pdf")
#: Marks our temporary folders: ``.<target>.policycheck-<pid>-<random>``.
_TMP_TAG = ".policycheck-"


def umask() -> int:
    """The process's umask (read without changing it where Linux allows)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_output_folder(out_dir: Path) -> None:
    """Refuse, before any computation, an output path that is not a folder."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InvalidInput(Problem(display_path(out), "the output path is an existing file, not a folder: "
                                                      "name a folder for the reports"))
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise InvalidInput(Problem(display_path(out), f"{display_path(parent)} is a file, not a folder"))
            break


def holds_only_reports(folder: Path) -> bool:
    return all(p.name in REPORT_FILES for p in folder.iterdir())


def write_report_set(out_dir: Path, files: dict[str, str]) -> None:
    """Make ``out_dir`` hold exactly the report files ``files`` (name -> text) of one run."""
    check_output_folder(out_dir)
    target = Path(out_dir)
    if target.is_dir() and not holds_only_reports(target):
        _replace_in_place(target, files)
        return
    _swap_in(target, files)


def _replace_in_place(folder: Path, files: dict[str, str]) -> None:
    """Each file atomically, report.json last; then the previous run's other formats go."""
    for name in sorted(files, key=lambda n: n == "report.json"):
        atomic_write_text(folder / name, files[name])
    for name in REPORT_FILES:
        if name not in files and (folder / name).is_file():
            (folder / name).unlink()


def _swap_in(target: Path, files: dict[str, str]) -> None:
    """Write ``files`` into a fresh folder beside ``target`` and swap it in with one rename."""
    if target.is_symlink():
        target = target.resolve()
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(parent, target.name)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}{_TMP_TAG}{os.getpid()}-", dir=parent))
    try:
        for file_name, text in files.items():
            # open() creates with 0o666 & ~umask, as the user expects.
            with open(tmp / file_name, "x", encoding="utf-8", newline="") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        mode = target.stat().st_mode & 0o7777 if target.is_dir() else 0o777 & ~umask()
        os.chmod(tmp, mode)
        _fsync_dir(tmp)
        if target.is_dir():
            _exchange(tmp, target)  # tmp now holds the previous set
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            os.rename(tmp, target)
        _fsync_dir(parent)
    except BaseException:
        if tmp.exists() and tmp.resolve() != target.resolve():
            shutil.rmtree(tmp, ignore_errors=True)
        raise


def _exchange(a: Path, b: Path) -> None:
    """Swap two folders in one step (Linux renameat2), else by two renames."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        fn = getattr(libc, "renameat2", None)
        if fn is not None:
            at_fdcwd, rename_exchange = -100, 2
            if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
                return
            err = ctypes.get_errno()
            if err not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
                raise OSError(err, os.strerror(err), str(b))
    # NOTE: without an exchange a kill between these two renames leaves the
    # previous set in the hidden folder and no output folder.
    old = b.with_name(f"{a.name}-old")
    os.rename(b, old)
    os.rename(a, b)
    os.rename(old, a)


def _remove_stale(parent: Path, name: str) -> None:
    """Remove temporary folders left by a killed run (their process is gone)."""
    for entry in parent.glob(f".{name}{_TMP_TAG}*"):
        pid = entry.name[len(f".{name}{_TMP_TAG}"):].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.is_file() else 0o666 & ~umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)  # mkstemp makes 0600; keep the user's umask
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes, read in blocks (policies, manifests, data files)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
