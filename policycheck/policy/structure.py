"""Structural problems: pydantic's validation errors of a policy, in the policy language's words and places."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ValidationError

from policycheck.core.errors import Problem
from policycheck.core.suggest import suggest
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
    problems = []
    for err in exc.errors():
        loc = prefix + tuple(err["loc"])
        kind = err["type"]
        if kind == "extra_forbidden":
            model = _model_at(loc[:-1])
            fields = list(model_fields) if model_fields is not None else (list(model.model_fields) if model else [])
            msg = f"unknown key {loc[-1]!r}{suggest(str(loc[-1]), fields)}"
        elif kind == "missing":
            msg = f"missing required key {loc[-1]!r}"
            loc = loc[:-1]
        elif kind == "literal_error":
            expected = err.get("ctx", {}).get("expected", "")
            choices = [c.strip(" '") for c in expected.replace(" or ", ",").split(",")]
            msg = f"{loc[-1]}: {err['input']!r} is not one of {expected}{suggest(str(err['input']), choices)}"
        elif kind in ("value_error", "assertion_error"):
            msg = err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
            if loc and not isinstance(loc[-1], int) and _model_at(loc) is None:
                msg = f"{loc[-1]}: {msg}"
        else:
            label = ".".join(str(p) for p in err["loc"] if not isinstance(p, int)) or "value"
            got = err.get("input")
            shown = "" if isinstance(got, (dict, list)) else f" (got {got!r})"
            msg = f"{label}: {err['msg'][0].lower()}{err['msg'][1:]}{shown}"
            if kind == "string_type" and isinstance(got, (int, float)) and not isinstance(got, bool):
                msg += f"; quote it: '{got}'"
        problems.append(source.problem(loc, msg, name))
    return problems
