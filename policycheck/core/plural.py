"""A count and its noun in the right number: ``1 rule``, ``2 rules``, ``0 rules`` (never ``rule(s)``)."""

from __future__ import annotations


def noun(n: int, singular: str, plural: str | None = None) -> str:
    """``singular`` for one, else ``plural`` (default: ``singular`` + s)."""
    return singular if n == 1 else (plural or singular + "s")


def count_of(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and its noun: ``1 rule``, ``2 rules``, ``0 rules``."""
    return f"{n} {noun(n, singular, plural)}"
