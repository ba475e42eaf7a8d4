"""Did-you-mean: the close match a message offers for a misspelt name."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` when a close match exists, else empty."""
    match = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""
