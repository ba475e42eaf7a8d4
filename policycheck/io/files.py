"""Reading inputs safely, and writing a report set atomically.

Reading. Every input (policy, manifest, ledger, SDV metadata, data file,
report, pyproject.toml, git metadata) is opened through :func:`open_regular`:
anything that is not a regular file (a FIFO, which blocks its reader for
ever; a device such as /dev/zero, which never ends; a socket; a directory)
is refused with one line, before a byte is read. Capped files (policies,
manifests, ledgers, reports) are read with :func:`read_capped`: a file whose
size is over the cap is refused from its size alone, and at most cap + 1
bytes are read of one that lies about its size. :func:`read_json` refuses a
key written twice in one object and the non-JSON numbers NaN and Infinity.
Within :func:`reads_confined_to` (what ``verify`` uses) a file outside the
given folder is not opened at all.

Writing. The files of one run (report.json and its renderings) are written
into a fresh hidden folder beside the output folder, then swapped in with
one atomic rename (``renameat2(RENAME_EXCHANGE)`` on Linux), so a process
killed at any point leaves either the previous complete set or the new one.

An output folder that also holds other things (the demo keeps each
release's data beside its reports) cannot be swapped without moving them;
there each file is replaced atomically, report.json last, and the set is
tied together by the run id and report digest every file carries, which
``verify`` checks. Temporary files and folders carry the writer's process
id, so a later run removes those a killed run left. Files are created with
the user's umask. No output may replace an input (:func:`refuse_overwriting`).
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import errno
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from policycheck.core.errors import InvalidInput, Problem, display_path

#: Files a report set may hold; an output folder holding anything else is not ours to replace.
REPORT_FILES = ("report.json", "report.html", "report.md", "report.junit.xml", "report.sarif", "report.pdf")
#: Marks our temporary folders and files: ``.<target>.policycheck-<pid>-<random>``.
_TMP_TAG = ".policycheck-"
#: A temporary file of ours older than this, whose process is gone, was left by a killed run.
STALE_SECONDS = 60.0


# --- reading ------------------------------------------------------------------------

#: What a path that is not a regular file is, by its stat type.
_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}

#: (root, why, files allowed besides) while reads are confined to ``root`` (see :func:`reads_confined_to`).
_CONFINED: contextvars.ContextVar[tuple[Path, str, frozenset[Path]] | None] = contextvars.ContextVar(
    "policycheck_confined", default=None
)


def shown(path: Path | str) -> str:
    """A path as the user named it: its folder as :func:`display_path` shows it, its last part as given (a link's name)."""
    path = Path(path)
    return str(Path(display_path(path.parent)) / path.name) if path.name else display_path(path)


def kind_of(mode: int) -> str | None:
    """None for a regular file, else what it is in words ("a FIFO (named pipe)", "a directory", ...)."""
    if stat.S_ISREG(mode):
        return None
    return _KINDS.get(stat.S_IFMT(mode), "not a file")


def _not_regular(path: Path, what: str, mode: int) -> InvalidInput:
    return InvalidInput(Problem(shown(path), f"{what} path is {kind_of(mode)}, not a regular file"))


def stat_input(path: Path | str, what: str) -> os.stat_result:
    """Stat an input (links followed): refuse one that is missing, unreadable, not a regular file or out of bounds.

    A stat never blocks, whatever the path is; nothing is opened here.
    """
    path = Path(path)
    name = shown(path)
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise InvalidInput(Problem(name, f"{what} file not found")) from None
    except OSError as exc:  # a loop of links, a name too long, no permission
        raise InvalidInput(Problem(name, f"cannot read {what} file: {exc.strerror}")) from None
    except ValueError:  # a NUL character in the path
        raise InvalidInput(Problem(name, f"cannot read {what} file: the path holds a NUL character")) from None
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(path, what, info.st_mode)
    check_confined(path, what)
    return info


def open_regular(path: Path | str, what: str) -> IO[bytes]:
    """Open an input for reading in binary, or refuse it with one line (see :func:`stat_input`).

    The file is opened without blocking and its type checked again on the
    open descriptor: a FIFO swapped in after the stat is refused, not waited on.
    """
    stat_input(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InvalidInput(Problem(shown(path), f"cannot read {what} file: {exc.strerror}")) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(Path(path), what, mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_capped(path: Path | str, what: str, cap: int) -> bytes:
    """The bytes of a capped input: refused unread when its size is over ``cap``, and never read past cap + 1."""
    with open_regular(path, what) as fh:
        if os.fstat(fh.fileno()).st_size > cap:
            raise InvalidInput(Problem(shown(path), f"{what} file is larger than {cap} bytes"))
        try:
            data = fh.read(cap + 1)
        except OSError as exc:
            raise InvalidInput(Problem(shown(path), f"cannot read {what} file: {exc.strerror}")) from None
    if len(data) > cap:  # a file in /proc says 0 bytes and holds more
        raise InvalidInput(Problem(shown(path), f"{what} file is larger than {cap} bytes"))
    return data


class _DuplicateKey(ValueError):
    pass


class _NotANumber(ValueError):
    pass


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _no_constant(word: str) -> Any:
    raise _NotANumber(f"{word} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _NotANumber(f"{text[:40]} is beyond the floating-point range")
    return value


#: Longest integer read from JSON, in digits (Python refuses to convert more than 4,300; seeds are far shorter).
_MAX_JSON_DIGITS = 1000


def _bounded_int(text: str) -> int:
    if len(text) > _MAX_JSON_DIGITS:
        raise _NotANumber(f"an integer of {len(text)} digits is more than a report holds")
    return int(text)


def parse_json(text: str, name: str) -> Any:
    """JSON as every reader reads it: a key written twice, NaN and Infinity (not JSON), or a number
    no float or sensible integer holds, is refused."""
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_members,
            parse_constant=_no_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except _DuplicateKey as exc:
        raise InvalidInput(
            Problem(
                name,
                f"not valid JSON: key {exc.args[0]!r} appears twice in one object "
                "(readers disagree on which one counts)",
            )
        ) from None
    except _NotANumber as exc:
        raise InvalidInput(Problem(name, f"not valid JSON: {exc.args[0]}")) from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(Problem(name, f"not valid JSON: {exc.msg}", exc.lineno, exc.colno)) from None
    except RecursionError:
        raise InvalidInput(Problem(name, "not valid JSON: nesting is too deep")) from None


def read_json(path: Path | str, what: str, cap: int) -> Any:
    """A capped JSON input (a report, an SDV metadata file), parsed by :func:`parse_json`."""
    raw = read_capped(path, what, cap)
    name = shown(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(Problem(name, f"{what} file is not valid UTF-8 (byte {exc.start})")) from None
    return parse_json(text, name)


@contextlib.contextmanager
def reads_confined_to(root: Path, why: str, also: Iterable[Path] = ()) -> Iterator[None]:
    """Within this block no input outside ``root`` (but the files ``also``) is opened: it is refused, ``why`` saying why.

    Links are followed first, so a link inside ``root`` to a file outside it is outside.
    """
    token = _CONFINED.set((Path(root).resolve(), why, frozenset(Path(p).resolve() for p in also)))
    try:
        yield
    finally:
        _CONFINED.reset(token)


def may_read(path: Path | str) -> bool:
    """Whether ``path`` is inside the folder reads are confined to (always, outside :func:`reads_confined_to`)."""
    confined = _CONFINED.get()
    if confined is None:
        return True
    try:
        resolved = Path(path).resolve()
        if resolved in confined[2]:
            return True
        resolved.relative_to(confined[0])
        return True
    except (ValueError, OSError, RuntimeError):
        return False


def check_confined(path: Path | str, what: str = "input") -> None:
    """Refuse ``path`` when reads are confined to a folder that does not hold it."""
    if not may_read(path):
        root, why, _ = _CONFINED.get()  # type: ignore[misc]
        raise InvalidInput(Problem(shown(path), f"{what} file is outside {display_path(root)}, {why}"))


# --- writing ------------------------------------------------------------------------


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


def write_report_set(out_dir: Path, files: dict[str, str]) -> None:
    """Make ``out_dir`` hold exactly the report files ``files`` (name -> text) of one run."""
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
        pid = entry.name[len(f".{name}{_TMP_TAG}") :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
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
            if pid is not None and (not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid))):
                continue
            with contextlib.suppress(OSError):
                entry.unlink()


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
    check_output_folder(path.parent)  # a folder through a dangling link is refused, not created elsewhere
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


def sha256_file(path: Path, what: str = "input") -> str:
    """SHA-256 of a file's bytes, read in blocks (policies, manifests, data files); special files are refused."""
    digest = hashlib.sha256()
    with open_regular(path, what) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
