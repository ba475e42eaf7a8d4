"""Writing outputs atomically: a report set swapped in as one, single files by rename, never over an input.

The files of one run (report.json and its renderings) are written
into a fresh hidden folder beside the output folder, then swapped in with
one atomic rename (``renameat2(RENAME_EXCHANGE)`` on Linux), so a process
killed at any point leaves either the previous complete set or the new one.

An output folder that also holds other things (the demo keeps each
release's data beside its reports) cannot be swapped without moving them;
there each file is replaced atomically, report.json last, and the set is
tied together by the run id and report digest every file carries, and by
report.json's list of the files written with it, which ``verify`` checks.
Temporary files and folders carry the writer's process id, so a later run
removes those a killed run left. Files are created with
the user's umask. No output may replace an input (:func:`refuse_overwriting`).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from policycheck.core.errors import InvalidInput, Problem, display_path

#: Files a report set may hold; an output folder holding anything else is not ours to replace.
REPORT_FILES = ("report.json", "report.html", "report.md", "report.junit.xml", "report.sarif", "report.pdf")
#: Marks our temporary folders and files: ``.<target>.policycheck-<pid>-<random>``.
_TMP_TAG = ".policycheck-"
#: A temporary file of ours older than this, whose process is gone, was left by a killed run.
STALE_SECONDS = 60.0


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
    """Refuse, before any computation, an output path that is not a folder or leads through a dangling link.

    A link to a missing folder would have its target's missing folders
    created wherever it points; it is refused instead, naming the target.
    """
    out = Path(out_dir)
    for part in (out, *out.parents):
        if part.is_symlink() and not part.exists():
            raise InvalidInput(
                Problem(
                    str(part),
                    f"the output path is a symbolic link to {os.readlink(part)}, "
                    "which does not exist: create that folder or name another",
                )
            )
    if out.exists() and not out.is_dir():
        raise InvalidInput(
            Problem(
                display_path(out), "the output path is an existing file, not a folder: name a folder for the reports"
            )
        )
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise InvalidInput(Problem(display_path(out), f"{display_path(parent)} is a file, not a folder"))
            break


#: What refuse_overwriting says by default: a report set would replace the input.
REPORT_OVER_INPUT = (
    "an input of this check would be overwritten by the report written there: name another output folder with -o"
)


def refuse_overwriting(outputs: Iterable[Path], inputs: Iterable[Path | None], why: str = REPORT_OVER_INPUT) -> None:
    """Refuse, before any computation, an output file that is one of the inputs (by name, link or hard link).

    ``outputs`` are the files a command may replace or remove; ``why`` is the refusal's message.
    """
    existing = []
    for item in inputs:
        if item is None or not isinstance(item, (str, Path)):
            continue  # an in-memory table
        try:
            existing.append((Path(item), os.stat(item), Path(item).resolve()))
        except (OSError, ValueError, RuntimeError):
            continue
    for output in outputs:
        try:
            out_stat = os.stat(output)
        except (OSError, ValueError):
            out_stat = None
        resolved = Path(output).resolve()
        for path, in_stat, in_resolved in existing:
            if resolved == in_resolved or (
                out_stat is not None and (out_stat.st_dev, out_stat.st_ino) == (in_stat.st_dev, in_stat.st_ino)
            ):
                raise InvalidInput(Problem(display_path(path), why))


def holds_only_reports(folder: Path) -> bool:
    return all(p.name in REPORT_FILES for p in folder.iterdir())


def write_report_set(out_dir: Path, files: dict[str, str | bytes]) -> None:
    """Make ``out_dir`` hold exactly the report files ``files`` (name -> text, or bytes) of one run."""
    check_output_folder(out_dir)
    target = Path(out_dir)
    if target.is_dir():
        _remove_stale_files(target)
    if target.is_dir() and (not holds_only_reports(target) or _holds_cwd(target)):
        # NOTE: a folder the process works in (`-o .`) cannot be swapped away from under it.
        _replace_in_place(target, files)
        return
    _swap_in(target, files)


def _holds_cwd(folder: Path) -> bool:
    cwd = Path.cwd().resolve()
    target = folder.resolve()
    return target == cwd or target in cwd.parents


def _replace_in_place(folder: Path, files: dict[str, str | bytes]) -> None:
    """Each file atomically, report.json last; then the previous run's other formats go."""
    for name in sorted(files, key=lambda n: n == "report.json"):
        atomic_write_bytes(folder / name, file_bytes(files[name]))
    for name in REPORT_FILES:
        if name not in files and (folder / name).is_file():
            (folder / name).unlink()


def file_bytes(content: str | bytes) -> bytes:
    """A report file's bytes as written: text in UTF-8."""
    return content if isinstance(content, bytes) else content.encode("utf-8")


def _swap_in(target: Path, files: dict[str, str | bytes]) -> None:
    """Write ``files`` into a fresh folder beside ``target`` and swap it in with one rename."""
    if target.is_symlink():
        target = target.resolve()
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(parent, target.name)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}{_TMP_TAG}{os.getpid()}-", dir=parent))
    try:
        for file_name, content in files.items():
            # open() creates with 0o666 & ~umask, as the user expects.
            with open(tmp / file_name, "xb") as fh:
                fh.write(file_bytes(content))
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
        pid = entry.name[len(f".{name}{_TMP_TAG}") :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not process_alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


def _remove_stale_files(folder: Path) -> None:
    """Remove temporary report files a killed run left in ``folder``: ``.report.json.policycheck-<pid>-*.tmp``.

    One is stale when its process is gone and it is older than
    :data:`STALE_SECONDS` (a writer on another machine sharing the folder
    has a process id this one cannot see, and writes a report in well under
    that); one named as earlier versions named them (no process id) only by age.
    """
    now = time.time()
    for name in REPORT_FILES:
        for entry in folder.glob(f".{name}.*.tmp"):
            rest = entry.name[len(f".{name}.") :]
            pid = rest[len(_TMP_TAG) - 1 :].split("-", 1)[0] if rest.startswith(_TMP_TAG[1:]) else None
            try:
                info = entry.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or now - info.st_mtime < STALE_SECONDS:
                continue
            if pid is not None and (not pid.isdigit() or int(pid) == os.getpid() or process_alive(int(pid))):
                continue
            with contextlib.suppress(OSError):
                entry.unlink()


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs (on this machine, in this process namespace)."""
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
    check_output_folder(path.parent)  # a folder through a dangling link is refused, not created elsewhere
    if path.is_dir():  # os.replace would fail on it after the file was written
        raise InvalidInput(Problem(display_path(path), "is a folder: name a file to write"))
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.is_file() else 0o666 & ~umask()
    # The process id in the name lets a later run tell a file a killed run left (_remove_stale_files).
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}{_TMP_TAG}{os.getpid()}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)  # mkstemp makes 0600; keep the user's umask
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
