"""Text for the terminal: values from files never print as terminal control.

A release id, column name or path comes from someone else's file. Printed
raw, a newline in it forges lines (a fake ``pass`` under a failing rule), an
escape sequence rewrites the screen, and a lone surrogate cannot be encoded
at all. Every such character is shown as a Python-style escape instead.
"""

from __future__ import annotations

import re

#: C0 controls but tab, DEL and C1 controls, line/paragraph separators, bidi overrides, lone surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape_char(match: re.Match[str]) -> str:
    if match.group() in _NAMED:
        return _NAMED[match.group()]
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: object) -> str:
    """``text`` as one printable line (newlines included are escaped)."""
    return _UNSAFE.sub(_escape_char, str(text))


def block(text: object) -> str:
    """``text`` with its own line breaks kept and every other control escaped."""
    return "\n".join(one_line(line) for line in str(text).split("\n"))
