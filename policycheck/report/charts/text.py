"""Numbers and labels on a chart: formatted, measured (about 0.6 em per character), shortened and wrapped."""

from __future__ import annotations

import math
from typing import Any


def number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def fmt(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 10000 or abs(v) < 0.001:
        return f"{v:.2g}"
    return f"{v:.3g}"


def text_width(text: str, size: float) -> float:
    return len(text) * size * 0.6


def shorten(text: str, width: float, size: float) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels at font ``size``."""
    fits = max(int(width / (size * 0.6)), 2)
    return text if len(text) <= fits else text[: fits - 1] + "…"


def shorten_middle(text: str, width: float, size: float) -> str:
    """``text`` cut in the middle to fit ``width`` pixels: the end that tells ``adult-2025[0]`` from
    ``adult-2025[1]`` stays."""
    fits = max(int(width / (size * 0.6)), 3)
    if len(text) <= fits:
        return text
    tail = (fits - 1) // 2
    return text[: fits - 1 - tail] + "…" + text[len(text) - tail :]


def split_in_two(text: str, width: float, size: float) -> list[str] | None:
    """``text`` as two lines, split after the separator nearest its middle, when both fit ``width`` pixels
    (``adult-teaching-2025[1]`` -> ``adult-teaching-``, ``2025[1]``); one line when it fits; None when no
    split fits."""
    fits = max(int(width / (size * 0.6)), 3)
    if len(text) <= fits:
        return [text]
    cuts = [i + 1 for i, ch in enumerate(text[:-1]) if ch in SEPARATORS]
    for cut in sorted(cuts, key=lambda i: abs(len(text) / 2 - i)):
        if cut <= fits and len(text) - cut <= fits:
            return [text[:cut], text[cut:]]
    return None


def wrap(text: str, width: float, char: float, max_lines: int = 2) -> list[str]:
    """Greedy word wrap of ``text`` into lines of at most ``width`` pixels."""
    fits = max(int(width / char), 4)
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}".strip()
        if len(candidate) <= fits or not line:
            line = candidate
        else:
            lines.append(line)
            line = word
    if line or not lines:
        lines.append(line)
    if len(lines) > max_lines:
        lines = lines[: max_lines - 1] + [" ".join(lines[max_lines - 1 :])]
    return [ln if len(ln) <= fits else ln[: fits - 1] + "…" for ln in lines]


SEPARATORS = "-_ ./:"


def distinct_parts(labels: list[str]) -> list[str]:
    """Labels without the prefix and suffix they all share (cut at a separator), so long rule ids
    such as ``release-q4-mi-rule-0`` and ``release-q4-mi-rule-1`` show as ``0`` and ``1``; the caption
    names what was left out (see :func:`common_affixes`)."""
    prefix, suffix = common_affixes(labels)
    if not (prefix or suffix):
        return list(labels)
    return [label[len(prefix) : len(label) - len(suffix)] for label in labels]


def common_affixes(labels: list[str]) -> tuple[str, str]:
    """The separator-bounded prefix and suffix every label shares (empty for fewer than two labels)."""
    if len(labels) < 2 or len(set(labels)) < 2:
        return "", ""
    first = min(labels, key=len)
    n = 0
    while n < len(first) and all(label[n] == first[n] for label in labels):
        n += 1
    prefix = first[:n]
    cut = max((prefix.rfind(c) for c in SEPARATORS), default=-1)
    prefix = prefix[: cut + 1] if cut >= 0 else ""
    rests = [label[len(prefix) :] for label in labels]
    shortest = min(rests, key=len)
    m = 0
    while m < len(shortest) and all(r[len(r) - 1 - m] == shortest[len(shortest) - 1 - m] for r in rests):
        m += 1
    suffix = shortest[len(shortest) - m :] if m else ""
    first_cut = min((i for i, c in enumerate(suffix) if c in SEPARATORS), default=None)
    suffix = suffix[first_cut:] if first_cut is not None else ""
    if any(len(r) - len(suffix) < 1 for r in rests):
        suffix = ""
    return prefix, suffix
