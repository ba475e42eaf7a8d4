"""A policy document as read: ``extends`` resolved, and where each node came from (``file:line:col``).

A policy may extend others: top-level keys of the child replace the base's,
rules merge by id (params key by key), waivers add up. Every node keeps the
file, line and column it came from, so a problem anywhere names its place.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.io.files import kind_of
from policycheck.io.yaml_types import Located, PathKey
from policycheck.io.yamlio import load_yaml

#: Where a node came from: (file, line, col), 1-based; line and col None when unknown.
Origin = tuple[str, int | None, int | None]


@dataclass
class Source:
    """A policy document after ``extends`` merging: data plus where each node came from."""

    data: dict[str, Any]
    origins: dict[PathKey, Origin]
    files: list[tuple[Path, str]]  # (path, sha256) of every file read, this one first

    def problem(self, path: PathKey, message: str, default_file: str) -> Problem:
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.origins:
                file, line, col = self.origins[path[:cut]]
                return Problem(file, message, line, col)
        return Problem(default_file, message)


def load_source(path: Path, stack: list[Path] | None = None) -> Source:
    """The policy at ``path`` with every policy it ``extends`` merged in (child over base).

    ``stack`` holds the files extending this one, to refuse a cycle.
    """
    stack = stack or []
    resolved = path.resolve()
    if resolved in stack:
        chain = " -> ".join(display_path(p) for p in [*stack, resolved])
        raise InvalidInput(Problem(display_path(stack[-1]), f"extends cycle: {chain}"))
    located = load_yaml(path, "policy")
    if not isinstance(located.data, dict):
        raise InvalidInput(Problem(located.file, "a policy must be a YAML mapping (key: value)", 1, 1))
    sha = located.sha256
    assert sha is not None, "load_yaml hashes the bytes of every file it reads"
    own = Source(
        located.data,
        {p: (located.file, line, col) for p, (line, col) in located.marks.items()},
        [(path, sha)],
    )
    _check_unique_rule_ids(located)
    bases = located.data.get("extends")
    if bases is None:
        return own
    if isinstance(bases, str):
        bases = [bases]
    if not isinstance(bases, list) or not all(isinstance(b, str) for b in bases):
        raise InvalidInput(located.problem(("extends",), "extends must be a file path or a list of file paths"))
    if not bases:
        return own  # extends: [] (found by the fuzz suite)
    merged: Source | None = None
    for i, base in enumerate(bases):
        base_path = path.parent / base
        key = ("extends", i) if isinstance(located.data["extends"], list) else ("extends",)
        shown = base if len(base) <= 80 else base[:77] + "..."
        try:
            mode: int | None = os.stat(base_path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            mode = None
        except (OSError, ValueError) as exc:  # a name too long, a NUL byte
            raise InvalidInput(
                located.problem(
                    key, f"extended policy {shown!r} cannot be read: {getattr(exc, 'strerror', None) or exc}"
                )
            ) from None
        if mode is None:
            raise InvalidInput(located.problem(key, f"extended policy {shown!r} not found"))
        if kind_of(mode) is not None:  # `extends: .`: it is there, and it is no policy file
            raise InvalidInput(located.problem(key, f"extended policy {shown!r} is {kind_of(mode)}, not a policy file"))
        loaded = load_source(base_path, [*stack, resolved])
        merged = loaded if merged is None else _merge(merged, loaded)
    assert merged is not None
    result = _merge(merged, own)
    result.files = [*own.files, *[f for f in result.files if f not in own.files]]
    return result


def _check_unique_rule_ids(located: Located) -> None:
    seen: dict[str, int] = {}
    problems = []
    rules = located.data.get("rules")
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        if isinstance(rule, dict) and isinstance(rule.get("id"), str):
            if rule["id"] in seen:
                problems.append(
                    located.problem(
                        ("rules", i, "id"), f"duplicate rule id {rule['id']!r} (first at rule {seen[rule['id']] + 1})"
                    )
                )
            seen.setdefault(rule["id"], i)
    if problems:
        raise InvalidInput(problems)


def _merge(base: Source, child: Source) -> Source:
    """Child over base: top-level keys replace, rules merge by id (params key by key)."""
    data: dict[str, Any] = {}
    origins: dict[PathKey, Origin] = {}

    def take(src: Source, key: str) -> None:
        data[key] = src.data[key]
        _graft(origins, (key,), _subtree(src.origins, (key,)))

    for key in base.data:
        if key not in ("rules", "waivers"):
            take(base, key)
    for key in child.data:
        if key not in ("rules", "waivers"):
            take(child, key)
    if () in child.origins:
        origins[()] = child.origins[()]

    rules: list[Any] = []
    index_of: dict[str, int] = {}
    for src in (base, child):
        # NOTE: a malformed rules/waivers value (rules: 5) is reported by validation.
        own_rules = src.data.get("rules")
        for i, rule in enumerate(own_rules if isinstance(own_rules, list) else []):
            sub = _subtree(src.origins, ("rules", i))
            rid = rule.get("id") if isinstance(rule, dict) else None
            if isinstance(rid, str) and rid in index_of:
                j = index_of[rid]
                merged = dict(rules[j])
                for k, v in rule.items():
                    if k == "params" and isinstance(v, dict) and isinstance(merged.get("params"), dict):
                        merged["params"] = {**merged["params"], **v}
                    else:
                        merged[k] = v
                rules[j] = merged
                _graft(origins, ("rules", j), {p: o for p, o in sub.items() if p})
            else:
                if isinstance(rid, str):
                    index_of[rid] = len(rules)
                _graft(origins, ("rules", len(rules)), sub)
                rules.append(rule)
    if rules or "rules" in base.data or "rules" in child.data:
        data["rules"] = rules
        origins[("rules",)] = child.origins.get(("rules",), base.origins.get(("rules",), ("", None, None)))

    waivers: list[Any] = []
    for src in (base, child):
        own_waivers = src.data.get("waivers")
        for i, waiver in enumerate(own_waivers if isinstance(own_waivers, list) else []):
            _graft(origins, ("waivers", len(waivers)), _subtree(src.origins, ("waivers", i)))
            waivers.append(waiver)
    if waivers:
        data["waivers"] = waivers
    for key in ("rules", "waivers"):
        for src in (base, child):  # keep a value that is not a list, so validation names it
            if key in src.data and not isinstance(src.data[key], list):
                data[key] = src.data[key]
                origins[(key,)] = src.origins.get((key,), ("", None, None))
    return Source(data, origins, [*child.files, *base.files])


def _subtree(origins: dict[PathKey, Origin], prefix: PathKey) -> dict[PathKey, Origin]:
    n = len(prefix)
    return {p[n:]: o for p, o in origins.items() if p[:n] == prefix}


def _graft(origins: dict[PathKey, Origin], prefix: PathKey, sub: dict[PathKey, Origin]) -> None:
    for p, o in sub.items():
        origins[prefix + p] = o
