"""The fast path of YAML loading: libyaml reads the plain documents policies are.

ruamel.yaml, pure Python, takes about 25 ms of CPU to parse the demo policy,
its baseline and its ledger (6.5 kB), and 15 ms more to import; libyaml, the
C parser PyYAML ships, gives the same parse events in under 2 ms. Here the
events of a document in the *plain subset* become
:class:`~policycheck.io.yaml_types.Located` data directly, with the marks
ruamel.yaml records (a key's position, a sequence item's position, the top
mapping's start), and ruamel.yaml is not imported at all.

The plain subset is what a policy, manifest or ledger is in practice:
mappings, sequences and scalars without anchors, aliases, tags or
directives; one document; unique string keys; scalars that are quoted or
block text, or plain scalars whose YAML 1.2 type is a string (none of
ruamel.yaml's patterns of the other types matches), an integer (``-12``), a
float (``0.05``, ``1e-6``, ``1.0e-5``), a date (``2027-03-31``), a boolean
(``true``) or null (``null``, ``~``, nothing). Any other document (a time
stamp, ``0x1F``, ``1_000``, ``.inf``, a duplicate key, a tab, more than
:data:`~policycheck.io.yaml_types.MAX_NODES` nodes, deep nesting) and every syntax
error gives ``None``: ruamel.yaml then reads it, so its values and its error
messages stay the one definition, and this path only ever skips work.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from typing import Any

from policycheck.io.yaml_types import MAX_DIGITS, MAX_NODES, Located

#: Deepest nesting read here; real documents nest four or five levels.
MAX_DEPTH = 64

# YAML 1.2 as ruamel.yaml resolves plain scalars (its resolver.py; tests/io/test_yaml_libyaml.py checks).
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_NULL = frozenset({"null", "Null", "NULL", "~", ""})
#: ruamel.yaml's YAML 1.2 patterns of the plain scalars that are not strings (bool, float, int,
#: merge, null, timestamp, value, yaml), copied from its resolver.py: a scalar matching none is a string.
TYPED_PATTERNS = (
    """^(?:true|True|TRUE|false|False|FALSE)$""",
    """^(?:
         [-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |[-+]?\\.[0-9_]+(?:[eE][-+][0-9]+)?
        |[-+]?\\.(?:inf|Inf|INF)
        |\\.(?:nan|NaN|NAN))$""",
    """^(?:[-+]?0b[0-1_]+
        |[-+]?0o?[0-7_]+
        |[-+]?[0-9_]+
        |[-+]?0x[0-9a-fA-F_]+)$""",
    "^(?:<<)$",
    """^(?: ~
        |null|Null|NULL
        | )$""",
    """^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
        |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
        (?:[Tt]|[ \\t]+)[0-9][0-9]?
        :[0-9][0-9] :[0-9][0-9] (?:\\.[0-9]*)?
        (?:[ \\t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
    "^(?:=)$",
    "^(?:!|&|\\*)$",
)
#: First characters of those patterns beyond the words above: a plain scalar starting otherwise
#: (``no``, ``numeric``, ``../data`` is not one) is a string without trying them.
_TYPED_START = frozenset("-+0123456789.<=!&*")
#: Characters the two parsers treat differently: tabs (YAML 1.2 allows them in fewer places
#: than libyaml does), YAML 1.1's extra line breaks, a byte-order mark inside the text, CR.
_UNEVEN = ("\t", "\x85", "\u2028", "\u2029", "\ufeff", "\r")
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]+(?:[eE][-+]?[0-9]+)?|[eE][-+]?[0-9]+)")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


class _NotPlain(Exception):
    """The document is outside the plain subset: ruamel.yaml reads it."""


_UNSET = object()


def parse_plain(text: str, name: str) -> Located | None:
    """``text`` as :class:`Located` data, or None when it is outside the plain subset (or libyaml is missing)."""
    try:
        from yaml import _yaml as libyaml  # PyYAML's binding of libyaml
    except ImportError:  # pragma: no cover - PyYAML built without libyaml
        return None
    if any(ch in text for ch in _UNEVEN):
        return None
    try:
        return _located(libyaml.CParser(text), name)
    except Exception:  # noqa: BLE001 - any doubt (a syntax error included): ruamel.yaml decides and words it
        return None


def _located(parser: Any, name: str) -> Located:
    """Build the data and its marks from the parser's events, without recursion."""
    from yaml import events

    located = Located(None, name)
    marks = located.marks
    # Open collections, innermost last: [container, path, key awaiting its value or None].
    stack: list[list[Any]] = []
    nodes = 0
    documents = 0
    root: Any = _UNSET
    while True:
        event = parser.get_event()
        if isinstance(event, events.StreamEndEvent):
            break
        if isinstance(event, (events.StreamStartEvent, events.DocumentEndEvent)):
            continue
        if isinstance(event, events.DocumentStartEvent):
            documents += 1
            if documents > 1 or event.version is not None or event.tags:
                raise _NotPlain("directives or several documents")
            continue
        if isinstance(event, (events.MappingEndEvent, events.SequenceEndEvent)):
            stack.pop()
            continue
        if isinstance(event, events.AliasEvent) or event.anchor is not None or event.tag is not None:
            raise _NotPlain("anchor, alias or tag")
        nodes += 1
        if nodes > MAX_NODES or len(stack) > MAX_DEPTH:
            raise _NotPlain("too large")
        is_mapping = isinstance(event, events.MappingStartEvent)
        if isinstance(event, events.ScalarEvent):
            value: Any = _scalar(event)
        else:
            value = {} if is_mapping else []
        mark = (event.start_mark.line + 1, event.start_mark.column + 1)
        if not stack:
            if root is not _UNSET:
                raise _NotPlain("several documents")
            root, path = value, ()
            if is_mapping:
                marks[path] = mark
        else:
            parent = stack[-1]
            container, parent_path, key = parent
            if isinstance(container, list):
                path = parent_path + (len(container),)
                marks[path] = mark
                container.append(value)
            elif key is None:  # this node is a key
                if not isinstance(value, str) or value in container:
                    raise _NotPlain("a key that is not a string, or a duplicate key")
                marks[parent_path + (value,)] = mark
                parent[2] = value
                continue
            else:
                path = parent_path + (key,)
                container[key] = value
                parent[2] = None
        if isinstance(value, (dict, list)):
            stack.append([value, path, None])
    if root is _UNSET or root is None:
        raise _NotPlain("no document, or an empty one")  # ruamel.yaml words "file is empty"
    located.data = root
    return located


def _scalar(event: Any) -> Any:
    """A scalar's value under YAML 1.2 (ruamel.yaml's reading), or _NotPlain when in doubt."""
    value = event.value
    if event.style:  # quoted, literal or folded: text as written
        return value
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if value in _NULL:
        return None
    if value[0] not in _TYPED_START or not any(p.match(value) for p in _typed_patterns()):
        return value  # `no`, `yes`, `../data`, `1st-4th`: strings in YAML 1.2
    if _INT.fullmatch(value):
        if len(value) - (value[0] in "+-") > MAX_DIGITS:
            raise _NotPlain("integer too long")  # ruamel.yaml words the error
        return int(value)
    if _FLOAT.fullmatch(value):
        return float(value)
    date = _DATE.fullmatch(value)
    if date:
        return dt.date(*map(int, date.groups()))  # an impossible date raises: ruamel.yaml words it
    raise _NotPlain(f"plain scalar {value!r}")


@functools.cache
def _typed_patterns() -> tuple[re.Pattern[str], ...]:
    # NOTE: compiled on first use: compiling them costs more than reading a policy.
    return tuple(re.compile(pattern, re.X) for pattern in TYPED_PATTERNS)
