"""Pydantic's validation errors in the words of the YAML documents users write (policies, release manifests).

One error becomes one message at the path of the node it concerns, never
pydantic's own text (``[type=..., input_value=...]``, a link to its site,
a model's class name): an unknown key with the nearest known one, a missing
key at the mapping that lacks it, a value not among the choices with the
nearest choice, a wrong type with the value given. Each document's loader
places the message at its line (``file:line:col: message``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from policycheck.core.suggest import suggest
from policycheck.io.yaml_types import PathKey

#: The keys of the model at a path of the document (None where no model is: a plain value, a list).
FieldsAt = Callable[[PathKey], Iterable[str] | None]


def worded(
    err: Mapping[str, Any],
    prefix: PathKey = (),
    fields_at: FieldsAt = lambda _: None,
    model_at: Callable[[PathKey], bool] | None = None,
    yaml: bool = True,
) -> tuple[PathKey, str]:
    """(path, message) of one of ``ValidationError.errors()``.

    ``prefix``: the path of the validated node; ``fields_at``: the keys an
    unknown key is matched against; ``model_at``: whether a model is at a
    path (its own check's message is placed there without the key's name),
    by default where ``fields_at`` knows keys; ``yaml``: whether the value
    came from YAML (a number where text is wanted is then told how to quote it).
    """

    def has_fields(path: PathKey) -> bool:
        return fields_at(path) is not None

    is_model = model_at or has_fields
    loc = prefix + tuple(err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        msg = f"unknown key {loc[-1]!r}{suggest(str(loc[-1]), fields_at(loc[:-1]) or [])}"
    elif kind == "missing":
        msg = f"missing required key {loc[-1]!r}"
        loc = loc[:-1]
    elif kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        choices = [c.strip(" '") for c in expected.replace(" or ", ",").split(",")]
        msg = f"{loc[-1]}: {err['input']!r} is not one of {expected}{suggest(str(err['input']), choices)}"
    elif kind in ("value_error", "assertion_error"):
        msg = err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
        if loc and not isinstance(loc[-1], int) and not is_model(loc):
            msg = f"{loc[-1]}: {msg}"  # a field's own check; a model's check is placed at the model
    else:
        label = ".".join(str(p) for p in err["loc"] if not isinstance(p, int)) or "value"
        got = err.get("input")
        shown = "" if isinstance(got, (dict, list)) else f" (got {got!r})"
        if kind in ("model_type", "dict_type"):  # pydantic names the model's class: a reader knows a mapping
            msg = f"{label}: expected a mapping (key: value){shown or ' (got a list)'}"
        else:
            msg = f"{label}: {err['msg'][0].lower()}{err['msg'][1:]}{shown}"
        if not yaml:
            pass
        elif kind == "string_type" and isinstance(got, int) and not isinstance(got, bool):
            msg += f"; quote it: '{got}'"
        elif kind == "string_type" and isinstance(got, float):
            # The text as written is gone (1.10 was read as 1.1): quoting what was read would change it.
            msg += "; quote it as you wrote it: unquoted, YAML reads a number (1.10 becomes 1.1)"
    return loc, msg
