"""Reading YAML with ruamel.yaml: every document outside libyaml's plain subset, and every error.

ruamel.yaml speaks YAML 1.2 and words every syntax error with its position;
:func:`policycheck.yamlio.parse_yaml` sends here what
:mod:`policycheck.yaml_libyaml` does not read (anchors, tags, dates, syntax
errors, ...), so this module is the one definition of what a document means.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from policycheck.errors import InvalidInput, Problem
from policycheck.yamlio import MAX_DIGITS, MAX_NODES, Located, PathKey


class _CappedComposer(Composer):
    """Counts nodes as they are composed, so a huge document stops at the cap, early."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._nodes = getattr(self, "_nodes", 0) + 1
        if self._nodes > MAX_NODES:
            event = self.parser.peek_event()
            raise ComposerError(None, None, f"document has more than {MAX_NODES} nodes", event.start_mark)
        return super().compose_node(parent, index)


class _CheckedConstructor(RoundTripConstructor):
    """Scalars that cannot become values are located errors, not exceptions from deep inside."""

    def construct_yaml_int(self, node: Any) -> Any:
        digits = sum(ch.isdigit() for ch in str(node.value))
        if digits > MAX_DIGITS:
            raise ConstructorError(None, None, f"integer with {digits} digits (at most {MAX_DIGITS})", node.start_mark)
        return super().construct_yaml_int(node)

    def construct_yaml_timestamp(self, node: Any, values: Any = None) -> Any:
        try:
            return super().construct_yaml_timestamp(node, values)
        except (ValueError, OverflowError) as exc:
            raise ConstructorError(None, None, f"invalid date {node.value!r}: {exc}", node.start_mark) from None


_CheckedConstructor.add_constructor("tag:yaml.org,2002:int", _CheckedConstructor.construct_yaml_int)
_CheckedConstructor.add_constructor("tag:yaml.org,2002:timestamp", _CheckedConstructor.construct_yaml_timestamp)


def parse(text: str, name: str, what: str = "policy") -> Located:
    """Parse one document with ruamel.yaml into :class:`Located` data (any problem: one located InvalidInput)."""
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    yaml.Composer = _CappedComposer
    yaml.Constructor = _CheckedConstructor
    try:
        doc = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = _yaml_message(exc)
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        raise InvalidInput(Problem(name, message, line, col)) from None
    except YAMLError as exc:
        raise InvalidInput(Problem(name, f"invalid YAML: {' '.join(str(exc).split())}")) from None
    except RecursionError:
        raise InvalidInput(Problem(name, "YAML nesting is too deep")) from None
    if doc is None:
        raise InvalidInput(Problem(name, f"{what} file is empty"))
    located = Located(None, name)
    budget = [MAX_NODES]
    located.data = _plain(doc, (), located, budget)
    return located


def _yaml_message(exc: MarkedYAMLError) -> str:
    problem = (exc.problem or "").strip()
    context = (exc.context or "").strip()
    if "duplicate key" in problem or "duplicate key" in context:
        key = problem.split('"')[1] if '"' in problem else ""
        return f"duplicate key {key!r}" if key else "duplicate key"
    text = " ".join((problem or context or "invalid YAML").split())
    return f"invalid YAML: {text}"


def _plain(node: Any, path: PathKey, located: Located, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise InvalidInput(
            Problem(located.file, f"document expands to more than {MAX_NODES} nodes (an alias bomb?)")
        )
    if isinstance(node, CommentedMap):
        out: dict[Any, Any] = {}
        for key, value in node.items():
            if not isinstance(key, (str, int, float, bool)) or key is None:
                line, col = node.lc.key(key) if key in node else (0, 0)
                raise InvalidInput(Problem(located.file, f"unsupported mapping key {key!r}", line + 1, col + 1))
            try:
                line, col = node.lc.key(key)
                located.marks[path + (str(key),)] = (line + 1, col + 1)
            except (KeyError, TypeError):
                pass
            out[str(key)] = _plain(value, path + (str(key),), located, budget)
        if path not in located.marks and node.lc.line is not None:
            located.marks[path] = (node.lc.line + 1, node.lc.col + 1)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for i, value in enumerate(node):
            try:
                line, col = node.lc.item(i)
                located.marks[path + (i,)] = (line + 1, col + 1)
            except (KeyError, TypeError):
                pass
            items.append(_plain(value, path + (i,), located, budget))
        return items
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    if isinstance(node, (_dt.date, _dt.datetime)):
        return node
    raise InvalidInput(Problem(located.file, f"unsupported YAML value {node!r}"))
