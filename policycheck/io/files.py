"""Reading inputs safely.

Every input (policy, manifest, ledger, SDV metadata, data file,
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

Writing the outputs is :mod:`policycheck.io.outputs`.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from policycheck.core.errors import InvalidInput, Problem, display_path

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
    """A path as the user named it: its folder as :func:`display_path` shows it, its last part as given.

    The last part is a link's own name, not its target's.
    """
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


def _decoder_words(message: str) -> str:
    """Python's decoder message as the end of our line: lower case, and complete.

    Some messages end where Python appends the position ("Unterminated string starting at"); the
    position is already the line's ``file:line:col:`` prefix, so they end in "here" instead.
    """
    if message.endswith(" at"):
        message = message[: -len(" at")] + " here"
    return message[:1].lower() + message[1:]


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
        raise InvalidInput(Problem(name, f"not valid JSON: {_decoder_words(exc.msg)}", exc.lineno, exc.colno)) from None
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
    """Within this block no input outside ``root`` (but the files ``also``) is opened.

    Such a file is refused, ``why`` saying why.

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


def sha256_file(path: Path, what: str = "input") -> str:
    """SHA-256 of a file's bytes, read in blocks (policies, manifests, data files); special files are refused."""
    digest = hashlib.sha256()
    with open_regular(path, what) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
