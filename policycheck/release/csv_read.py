"""CSV files (plain, .gz or .bz2): checked as a stream before any parser holds them, then parsed.

Refused, each with one line naming the file: bytes that do not decompress,
non-UTF-8 text, NUL bytes or a line over :data:`MAX_LINE_BYTES` (a binary or
sparse file: refused from the first block, never read whole; a gzip, bz2,
Parquet or Feather file named as plain CSV is told its name), an empty file,
duplicate column names, and a row with more or fewer fields than the header
(with its line number: a short row is never padded with missing values).
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, cast

import pandas as pd

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.io.files import open_regular

_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")

#: Compressed CSV suffixes and the codec behind each.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2"}
#: Longest CSV line read, in bytes: a longer one is not a record (a binary file, or a file of one line).
MAX_LINE_BYTES = 16_000_000
#: Bytes scanned at a time when a CSV is checked before parsing.
_BLOCK = 1 << 20


@contextlib.contextmanager
def _open_binary(path: Path, compression: str | None) -> Iterator[IO[bytes]]:
    """The file's bytes, decompressed on the fly (a regular file only); both streams closed after."""
    with open_regular(path, "data") as raw:
        if compression == "gzip":
            import gzip

            with gzip.GzipFile(fileobj=raw, mode="rb") as stream:
                yield cast(IO[bytes], stream)
        elif compression == "bz2":
            import bz2

            with bz2.BZ2File(raw, "rb") as stream:
                yield stream
        else:
            yield raw


@contextlib.contextmanager
def _open_text(path: Path, compression: str | None) -> Iterator[IO[str]]:
    """The file as UTF-8 text, decompressed on the fly."""
    with _open_binary(path, compression) as stream:
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        try:
            yield text
        finally:
            text.detach()  # the binary stream is closed by _open_binary


def scan_csv(path: Path, compression: str | None = None) -> None:
    """Check a CSV as a stream, a block at a time, before any parser holds it.

    Refused: bytes that do not decompress, text that is not UTF-8, a NUL
    byte (a binary or sparse file: from its first block, not after gigabytes),
    a line longer than :data:`MAX_LINE_BYTES`, and a file of nothing but blanks.
    """
    name = display_path(path)
    decoder = codecs.getincrementaldecoder("utf-8")()
    # ``start``: the byte the last line begins at; its number is counted only should it be too long.
    offset, start, run, blank = 0, 0, 0, True
    try:
        with _open_binary(path, compression) as stream:
            while block := stream.read(_BLOCK):
                if offset == 0 and compression is None and (kind := _binary_kind(block)):
                    raise InvalidInput(Problem(name, f"data file {kind.format(suffix=path.suffix)}"))
                nul = block.find(b"\0")
                if nul >= 0:
                    raise InvalidInput(
                        Problem(name, f"data file holds a NUL byte at byte {offset + nul}: it is not CSV text")
                    )
                # ASCII is UTF-8: only a block with other bytes, or one that must end a character
                # begun in the block before, is decoded (a decode holds the GIL, isascii() scans
                # a block in a millisecond; the loading's other threads wait for the GIL).
                begun = decoder.getstate()[0]
                try:
                    if begun or not block.isascii():
                        decoder.decode(block)
                except UnicodeDecodeError as exc:
                    # The error's position counts the bytes of the character begun in the block before.
                    at = offset + exc.start - len(begun)
                    raise InvalidInput(Problem(name, f"data file is not valid UTF-8 (byte {at})")) from None
                first = block.find(b"\n")
                # Only a line crossing blocks can be longer than one: a block is far shorter than the cap.
                run += len(block) if first < 0 else first
                if run > MAX_LINE_BYTES:
                    line = 1 + _newlines_before(path, compression, start)
                    raise InvalidInput(
                        Problem(
                            name, f"line {line} is longer than {MAX_LINE_BYTES} bytes: it is not a table of records"
                        )
                    )
                if first >= 0:
                    start = offset + block.rfind(b"\n") + 1
                    run = offset + len(block) - start
                blank = blank and not block.strip()
                offset += len(block)
            begun = decoder.getstate()[0]
            try:
                decoder.decode(b"", final=True)
            except UnicodeDecodeError:  # the file ends inside a character: named at its first byte
                raise InvalidInput(
                    Problem(name, f"data file is not valid UTF-8 (byte {offset - len(begun)})")
                ) from None
    except (OSError, EOFError, ValueError) as exc:  # gzip's and bz2's errors for bytes they cannot decompress
        if compression is None:
            raise InvalidInput(Problem(name, f"cannot read data file: {exc}")) from None
        raise InvalidInput(Problem(name, f"cannot decompress ({compression}): {exc}")) from None
    if blank:
        raise InvalidInput(Problem(name, "data file is empty"))


def _newlines_before(path: Path, compression: str | None, end: int) -> int:
    """How many line ends the file's first ``end`` bytes hold (read again: only a refusal needs the number)."""
    count = 0
    with _open_binary(path, compression) as stream:
        while end > 0 and (block := stream.read(min(_BLOCK, end))):
            count += block.count(b"\n")
            end -= len(block)
    return count


#: The first bytes of the files a CSV name may hide, and what to name each (``{suffix}``: the file's own).
_MAGIC = (
    (re.compile(rb"\x1f\x8b"), "looks gzip-compressed: name it {suffix}.gz"),
    # "BZh", the block size, then the first block's magic (or, for no data, the end-of-stream one).
    (re.compile(rb"BZh[1-9](1AY&SY|\x17rE8P\x90)"), "looks bz2-compressed: name it {suffix}.bz2"),
    (re.compile(rb"PAR1"), "looks like a Parquet file: name it .parquet"),
    (re.compile(rb"ARROW1"), "looks like a Feather file: name it .feather"),
)


def _binary_kind(head: bytes) -> str | None:
    """What a file named as plain CSV text is, from its first bytes, when they are a compressed or Arrow file's.

    Said only of a file that is no CSV text: a header that starts ``PAR1,...`` holds no NUL byte and
    is valid UTF-8, so it is read as the CSV it is; every one of these formats holds bytes that are not.
    """
    if b"\0" not in head:
        try:
            head.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return None
    return next((what for magic, what in _MAGIC if magic.match(head)), None)


def read_csv(path: Path, sep: str, compression: str | None = None) -> pd.DataFrame:
    name = display_path(path)
    scan_csv(path, compression)
    with _open_text(path, compression) as stream:
        records = csv.reader(stream, delimiter=sep)
        header = next(records, [])
        dupes = sorted({c for c in header if header.count(c) > 1})
        if dupes:
            raise InvalidInput(Problem(name, f"duplicate column names: {dupes}"))
        # pandas would take a first row with one field too many as an index
        # column, and pads short rows with missing values: check the first
        # row here, and every row below when a short row may have been padded.
        first = next((r for r in records if r), None)
        if first is not None and len(first) != len(header):
            raise InvalidInput(_ragged(name, records.line_num, len(first), len(header)))
    try:
        with _open_binary(path, compression) as stream:
            frame = pd.read_csv(
                stream, sep=sep, keep_default_na=False, na_values=[""], index_col=False, encoding="utf-8-sig"
            )
    except pd.errors.ParserError as exc:
        found = _FIELDS.search(str(exc))
        if found:
            expected, line, saw = (int(g) for g in found.groups())
            raise InvalidInput(_ragged(name, line, saw, expected)) from None
        raise
    if len(frame.columns) and frame.iloc[:, -1].isna().any():
        _check_no_short_rows(path, sep, len(header), compression)
    return frame


def _check_no_short_rows(path: Path, sep: str, expected: int, compression: str | None = None) -> None:
    with _open_text(path, compression) as stream:
        records = csv.reader(stream, delimiter=sep)
        next(records, None)
        for record in records:
            if record and len(record) < expected:
                raise InvalidInput(_ragged(display_path(path), records.line_num, len(record), expected))


def _ragged(name: str, line: int, fields: int, expected: int) -> Problem:
    return Problem(
        name,
        f"line {line} has {fields} field{'s' if fields != 1 else ''}, the header has {expected}: "
        "every row needs one field per column (an empty field is a missing value)",
    )
