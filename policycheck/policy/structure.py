"""Structural problems: pydantic's validation errors of a policy, in the policy language's words and places.

The wording is :mod:`policycheck.io.pydantic_words`' (the release manifest's too); this module knows the
policy's models, to offer the nearest key, and places each message at its line.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ValidationError

from policycheck.core.errors import Problem
from policycheck.io.pydantic_words import worded
from policycheck.io.yaml_types import PathKey
from policycheck.policy.model import Attacker, Metadata, Policy, Rule, Threshold, Waiver
from policycheck.policy.source import Source

_MODEL_AT: list[tuple[tuple[str, ...], type[BaseModel]]] = [
    ((), Policy),
    (("metadata",), Metadata),
    (("attacker",), Attacker),
    (("rules", "*"), Rule),
    (("rules", "*", "threshold"), Threshold),
    (("waivers", "*"), Waiver),
]


def _model_at(path: PathKey) -> type[BaseModel] | None:
    shape = tuple("*" if isinstance(p, int) else p for p in path)
    for pattern, model in _MODEL_AT:
        if pattern == shape:
            return model
    return None


def pydantic_problems(
    exc: ValidationError, source: Source, name: str, prefix: PathKey, model_fields: Iterable[str] | None = None
) -> list[Problem]:
    """Every error of ``exc`` as a problem at its place; ``model_fields``: the keys of the validated node
    (a rule's params), when no policy model is at ``prefix``."""

    def fields_at(path: PathKey) -> list[str]:
        model = _model_at(path)
        return list(model_fields) if model_fields is not None else (list(model.model_fields) if model else [])

    return [
        source.problem(*worded(err, prefix, fields_at, lambda path: _model_at(path) is not None), name)
        for err in exc.errors()
    ]
