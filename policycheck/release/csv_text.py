"""A DataFrame's CSV text as ``frame.to_csv(index=False, lineterminator="\\n")`` writes it, faster.

An in-memory table is named in reports by the SHA-256 of that text, so that a report on a
DataFrame and one on the CSV file pandas writes from it name the data alike
(:meth:`policycheck.release.memory.InMemoryTable.sha256`). pandas formats and writes it cell by
cell under the GIL: 1.3 s for 300,000 rows of 12 columns. For the columns most releases hold
(float64, integer and boolean NumPy columns; text with missing values) the text is composed here
from what pandas writes for each field, about 1.7 times as fast; a frame with any other column,
or with a column name that is not plain text, is written by pandas, and so are the rows of a
chunk holding a field the CSV writer would quote. The text goes out a chunk of rows at a time,
so neither it nor its fields are ever held whole.

What pandas writes per field (``get_values_for_csv``, then ``csv.writer`` with ``QUOTE_MINIMAL``):
float64 as NumPy's ``astype(str)``, the shortest text that reads back as the same double, which
is Python's ``repr``; integers and booleans as ``str``; text as it is; a missing value as the
empty field. Every field depends on its own value only, so chunks can be cut anywhere.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

#: Rows composed at a time: a few MB of fields, whatever the frame's size.
CHUNK_ROWS = 20_000

#: Characters that make the CSV writer quote a field (delimiter, quote, line breaks) or refuse it (NUL).
_QUOTED = (",", '"', "\n", "\r", "\x00")


def csv_sha256(frame: Any) -> str:
    """SHA-256 (hex) of ``frame.to_csv(index=False, lineterminator="\\n")`` encoded as UTF-8."""
    digest = hashlib.sha256()
    write_csv(frame, lambda text: digest.update(text.encode("utf-8")))
    return digest.hexdigest()


def csv_text(frame: Any) -> str:
    """``frame.to_csv(index=False, lineterminator="\\n")``, the same text."""
    pieces: list[str] = []
    write_csv(frame, pieces.append)
    return "".join(pieces)


def write_csv(frame: Any, write: Callable[[str], Any]) -> None:
    """Pass ``frame.to_csv(index=False, lineterminator="\\n")``'s text to ``write``, piece by piece."""
    kinds = _kinds(frame)
    if kinds is None:
        frame.to_csv(_Sink(write), index=False, lineterminator="\n")
        return
    write(",".join(frame.columns) + "\n")
    for start in range(0, len(frame), CHUNK_ROWS):
        rows = frame.iloc[start : start + CHUNK_ROWS]
        columns = [_fields(rows.iloc[:, i], kind) for i, kind in enumerate(kinds)]
        if any(_quoted(fields) for fields, kind in zip(columns, kinds, strict=True) if kind == "text"):
            rows.to_csv(_Sink(write), index=False, header=False, lineterminator="\n")
        else:
            write("\n".join(map(",".join, zip(*columns, strict=True))) + "\n")


class _Sink:
    """A text buffer for ``to_csv`` that hands each write on instead of keeping it."""

    def __init__(self, write: Callable[[str], Any]) -> None:
        self.write = write

    def flush(self) -> None:
        return None


def _kinds(frame: Any) -> list[str] | None:
    """Each column's kind of fields (``float``, ``plain``: integers, booleans; ``text``), or None where
    the frame is left to pandas: a column of another kind, or names that are not plain text."""
    import numpy as np
    import pandas as pd

    names = list(frame.columns)
    # One column: pandas quotes a row's lone empty field. No rows: nothing to gain.
    if len(names) < 2 or len(frame) == 0 or not all(isinstance(n, str) for n in names) or _quoted(names):
        return None
    kinds = []
    for i, dtype in enumerate(frame.dtypes):
        if isinstance(dtype, pd.StringDtype):
            kinds.append("text")
        elif not isinstance(dtype, np.dtype):
            return None  # categories, nullable numbers, Arrow types...
        elif dtype == np.float64:
            kinds.append("float")
        elif dtype.kind in "iub":
            kinds.append("plain")
        # Objects only when every value present is text (dates, numbers, mixtures go to pandas).
        elif dtype.kind == "O" and pd.api.types.infer_dtype(frame.iloc[:, i], skipna=True) in ("string", "empty"):
            kinds.append("text")
        else:
            return None
    return kinds


def _fields(series: Any, kind: str) -> list[str]:
    """The fields pandas writes for a column of ``kind`` (:func:`_kinds`)."""
    import numpy as np

    if kind == "float":
        values = series.to_numpy()
        fields = list(map(repr, values.tolist()))
        for row in np.flatnonzero(np.isnan(values)).tolist():
            fields[row] = ""
        return fields
    if kind == "plain":
        return list(map(str, series.to_numpy().tolist()))
    text: list[str] = series.astype(object).where(series.notna(), "").tolist()
    return text


def _quoted(fields: list[str]) -> bool:
    """Whether any field holds a character the CSV writer would quote (or refuse)."""
    joined = "\x01".join(fields)
    return any(c in joined for c in _QUOTED)
