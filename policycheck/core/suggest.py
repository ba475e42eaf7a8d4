"""Did-you-mean: the close match a message offers for a misspelt name."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: Shortest name a prefix or substring match may rest on (``mi`` in every word would match too much).
MIN_OVERLAP = 3


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` when a close match exists, else empty.

    A choice that begins the word or is begun by it (``disco`` for
    ``disco_risk``, ``dcr_share`` for ``dcr``) comes first, then one that
    contains it or is contained in it; only then the closest spelling
    (difflib's ratio, ``title`` for ``titel``). Among matches of one kind
    the closest spelling wins.
    """
    options = [str(c) for c in choices]
    match = _overlapping(str(word), options) or difflib.get_close_matches(str(word), options, n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


def _overlapping(word: str, choices: list[str]) -> list[str]:
    """The best choice sharing a prefix (else a substring) with ``word``, as a list of at most one."""
    w = word.lower()
    if len(w) < MIN_OVERLAP:
        return []
    for kind in (_prefix, _substring):
        found = [c for c in choices if len(c) >= MIN_OVERLAP and c.lower() != w and kind(w, c.lower())]
        if found:
            return [max(found, key=lambda c: difflib.SequenceMatcher(None, w, c.lower()).ratio())]
    return []


def _prefix(a: str, b: str) -> bool:
    return a.startswith(b) or b.startswith(a)


def _substring(a: str, b: str) -> bool:
    return a in b or b in a
