"""Which synthesizer the membership game's rounds run, and how (:class:`SynthesizerSpec`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SynthesizerSpec:
    """Which synthesizer a round runs, and how.

    ``kind``: ``"builtin"`` (``name`` one of
    :data:`policycheck.methods.synthesizers.MEMBERSHIP_BUILTIN`), ``"command"`` (the
    release's command template, :mod:`policycheck.methods.reconstruction.external`)
    or ``"entry"`` (a Python callable ``fn(frame, rows, seed) -> frame``, or an
    object with SDV's ``fit(frame)`` and ``sample(num_rows=...)``).
    """

    kind: str
    name: str
    epsilon: float | None = None  # indhist_dp's budget
    domain: dict[str, list[Any]] | None = None  # indhist_dp's public domain
    command: str | None = None
    workdir: str = "."
    time_limit: float = 600.0
    entry: Any = None

    def describe(self) -> str:
        if self.kind == "command":
            return f"command: {self.command}"
        if self.kind == "entry":
            return f"Python entry point: {self.name}"
        return self.name + (f" (epsilon {self.epsilon:g})" if self.epsilon is not None else "")
