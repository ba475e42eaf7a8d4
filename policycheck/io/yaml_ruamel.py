"""Reading YAML with ruamel.yaml: every document outside libyaml's plain subset, and every error.

ruamel.yaml speaks YAML 1.2 and words every syntax error with its position;
:func:`policycheck.io.yamlio.parse_yaml` sends here what
:mod:`policycheck.io.yaml_libyaml` does not read (anchors, tags, dates, syntax
errors, ...), so this module is the one definition of what a document means.
"""

from __future__ import annotations

import datetime as _dt
import warnings
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.reader import ReaderError

from policycheck.core.errors import InvalidInput, Problem
from policycheck.io.yaml_types import MAX_DEPTH, MAX_DIGITS, MAX_NODES, Located, PathKey, position


class _CappedComposer(Composer):
    """Counts nodes and nesting as they are composed, so a huge or deep document stops at the cap, early.

    The depth cap also keeps the recursion of composing, constructing and
    converting far from Python's limit, so "too deep" is an error at the
    node, not a RecursionError without a position.
    """

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._nodes = getattr(self, "_nodes", 0) + 1
        if self._nodes > MAX_NODES:
            event = self.parser.peek_event()
            raise ComposerError(None, None, f"document has more than {MAX_NODES} nodes", event.start_mark)
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_DEPTH:
                event = self.parser.peek_event()
                raise ComposerError(None, None, f"nesting deeper than {MAX_DEPTH} levels", event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


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

    def construct_non_recursive_object(self, node: Any, tag: Any = None) -> Any:
        # NOTE: ruamel raises plain exceptions (ValueError, KeyError, ...) for a
        # value its explicit tag cannot hold (`!!int abc`, `!!omap [a]`, `!!map x`);
        # they become located errors at the node. A mapping or sequence is filled
        # later, by a generator, so its generator is wrapped the same way.
        queued = len(self.state_generators)
        try:
            data = super().construct_non_recursive_object(node, tag)
        except _CONSTRUCTION_ERRORS as exc:
            raise _unreadable(node, exc) from None
        for i in range(queued, len(self.state_generators)):
            self.state_generators[i] = _located(self.state_generators[i], node)
        return data

    def check_mapping_key(self, node: Any, key_node: Any, mapping: Any, key: Any, value: Any) -> bool:
        # A mapping or list as a key (`? {a: {b: 1}}`, `{[x]: 1}`) names nothing in
        # a policy; refused here, before ruamel hashes it (TypeError: unhashable type).
        _check_key(key_node, key)
        return super().check_mapping_key(node, key_node, mapping, key, value)

    def check_set_key(self, node: Any, key_node: Any, setting: Any, key: Any) -> None:
        _check_key(key_node, key)
        return super().check_set_key(node, key_node, setting, key)


#: What ruamel raises, unwrapped, for a value its tag cannot hold.
_CONSTRUCTION_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, ArithmeticError)
#: Keys a mapping may have: names, numbers, booleans, null and dates (ruamel's subclasses included).
_KEY_TYPES = (str, int, float, _dt.date, type(None), TaggedScalar)


def _check_key(key_node: Any, key: Any) -> None:
    if not isinstance(key, _KEY_TYPES):
        raise ConstructorError(
            None, None, "a mapping key must be a name or a number, not a mapping or a list", key_node.start_mark
        )


def _unreadable(node: Any, exc: Exception) -> ConstructorError:
    tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
    value = node.value if isinstance(node.value, str) else None
    what = "an empty value" if value == "" else f"{value[:40]!r}" if value is not None else f"this {node.id}"
    return ConstructorError(None, None, f"{what} cannot be read as {tag}", node.start_mark)


def _located(generator: Any, node: Any) -> Any:
    try:
        yield from generator
    except _CONSTRUCTION_ERRORS as exc:
        raise _unreadable(node, exc) from None


def _construct_unread_tag(constructor: Any, node: Any) -> Any:
    # NOTE: YAML's own !!binary, !!set, !!omap and !!pairs build values (bytes, sets, pairs)
    # no policy field holds; refused at the node, not later without a position.
    tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
    raise ConstructorError(
        None,
        None,
        f"{tag} values are not read: only plain YAML values (text, numbers, booleans, dates, lists and mappings) are",
        node.start_mark,
    )


def _construct_unknown_tag(constructor: Any, node: Any) -> Any:
    # NOTE: ruamel keeps a local tag (`!x 1`) as a TaggedScalar and silently drops one
    # on a mapping or list; neither is a value of ours, so both are refused at the node.
    tag = str(node.tag)
    raise ConstructorError(
        None, None, f"unknown tag {tag!r}: only plain YAML values are read (remove the tag)", node.start_mark
    )


_CheckedConstructor.add_constructor(None, _construct_unknown_tag)
for _tag in ("binary", "set", "omap", "pairs"):
    _CheckedConstructor.add_constructor(f"tag:yaml.org,2002:{_tag}", _construct_unread_tag)
_CheckedConstructor.add_constructor("tag:yaml.org,2002:int", _CheckedConstructor.construct_yaml_int)
_CheckedConstructor.add_constructor("tag:yaml.org,2002:timestamp", _CheckedConstructor.construct_yaml_timestamp)


def parse(text: str, name: str, what: str = "policy") -> Located:
    """Parse one document with ruamel.yaml into :class:`Located` data (any problem: one located InvalidInput)."""
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    yaml.Composer = _CappedComposer
    yaml.Constructor = _CheckedConstructor
    try:
        with warnings.catch_warnings():
            # NOTE: a re-defined anchor is valid YAML 1.2; ruamel's warning would
            # print several lines on stderr, outside the one-line contract.
            warnings.simplefilter("ignore")
            doc = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = _yaml_message(exc)
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        raise InvalidInput(Problem(name, message, line, col)) from None
    except ReaderError as exc:
        # A character YAML does not allow in a file (a control character such as ESC or NUL).
        line, col = position(text, exc.position)
        raise InvalidInput(
            Problem(
                name,
                f"invalid YAML: character U+{exc.character:04X} is not allowed in YAML "
                "(write it as an escape in a double-quoted string)",
                line,
                col,
            )
        ) from None
    except YAMLError as exc:
        raise InvalidInput(Problem(name, f"invalid YAML: {' '.join(str(exc).split())}")) from None
    except RecursionError:
        raise InvalidInput(Problem(name, "YAML nesting is too deep")) from None
    if doc is None:
        raise InvalidInput(Problem(name, f"{what} file is empty", 1, 1))
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
        raise InvalidInput(Problem(located.file, f"document expands to more than {MAX_NODES} nodes (an alias bomb?)"))
    if isinstance(node, CommentedMap):
        out: dict[Any, Any] = {}
        for key, value in node.items():
            name = _plain(key, path, located, budget) if isinstance(key, TaggedScalar) else key  # `!!str 1: x`
            if not isinstance(name, (str, int, float, bool)) or name is None:
                line, col = node.lc.key(key) if key in node else (0, 0)
                raise InvalidInput(Problem(located.file, f"unsupported mapping key {key!r}", line + 1, col + 1))
            try:
                line, col = node.lc.key(key)
                located.marks[path + (str(name),)] = (line + 1, col + 1)
            except (KeyError, TypeError):
                line, col = None, None
            if str(name) in out:  # `1:` and `'1':`, or `!!str a:` and `a:`: one key once read
                raise InvalidInput(
                    Problem(
                        located.file,
                        f"duplicate key {str(name)!r}",
                        line + 1 if line is not None else None,
                        col + 1 if col is not None else None,
                    )
                )
            out[str(name)] = _plain(value, path + (str(name),), located, budget)
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
    if isinstance(node, TaggedScalar) and str(node.tag) == "tag:yaml.org,2002:str":
        return str(node.value)  # `!!str 1`: the string "1"
    # NOTE: the constructor refuses every tag it knows of no plain value; anything else lands here, at its key.
    raise InvalidInput(located.problem(path, f"unsupported YAML value of type {type(node).__name__}"))
