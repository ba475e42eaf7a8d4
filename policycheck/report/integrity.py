"""What makes report.json tamper-evident: re-derived fields, run-context digests, one run id.

``verify`` re-runs the check, so most of a report is *re-derived*: the
verdicts, numbers, thresholds, severities, waivers, owner, effective
policy, row counts, summary and warnings are compared with a fresh run
field by field. What a re-run cannot reproduce is the *run context*: when
and where the check ran, with which command, tool and library versions,
how long each step took, and the inputs of the re-run itself (seed,
``--fail-on-warn``, the date waivers are judged on, the paths files were
read from). Each context field gets a SHA-256 of its canonical JSON in
``provenance.integrity.fields``; the whole report (without its own
``integrity`` block) gets ``provenance.integrity.report_sha256``, which
report.html, .md, .junit.xml and .sarif carry beside the run id.

Written to a folder, report.json also lists in ``provenance.integrity.report_files``
the report files written with it as one set, each by name and the SHA-256 of its bytes
(report.pdf is printed by Chromium, which never prints the same bytes twice, and other
policycheck code renders report.json otherwise): verify names a file of the set that is
missing, or that is not the one written. The
list is sealed like a context field (``fields`` holds its digest); being inside the
integrity block, it changes neither ``report_sha256`` nor the renders that carry it,
which are written, and the PDF printed, before report.json.

A digest kept inside the file it covers is not a signature: it exposes an
edit made without recomputing it, and names the field, but whoever
recomputes the digests can change a context field unseen (never a
re-derived one). Sign report.json (GPG, Sigstore) where authorship matters.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

ALGORITHM = "sha256"

#: Context fields (JSON paths; ``*`` is any list index): what a re-run cannot reproduce,
#: or what it takes as input rather than computes.
CONTEXT_PATHS = (
    "generated_at",
    "policy.path",
    "release.manifest",
    "release.datasets.*.path",
    "rules.*.policy_location.file",
    "rules.*.seconds",
    "provenance.tool_version",
    "provenance.tool_source_sha256",
    "provenance.python",
    "provenance.platform",
    "provenance.libraries",
    "provenance.policy_files.*.path",
    "provenance.data_files.*.path",
    "provenance.manifest.path",
    "provenance.metadata.path",
    "provenance.referenced_files.*.path",
    "provenance.seed",
    "provenance.executor",
    "provenance.command",
    "provenance.fail_on_warn",
    "provenance.working_directory",
    "provenance.output_folder",
    "provenance.git_revision",
    "provenance.started_at",
    "provenance.finished_at",
    "provenance.intermediate_seconds",
    "provenance.run_id",
)
#: Where report.json lists the report files written with it; its digest sits in ``fields`` under this path.
REPORT_FILES = "provenance.integrity.report_files"
#: Leaf keys that are timings wherever they appear (e.g. a solver's run time in a rule's details).
TIMING_KEY = re.compile(r"(^|_)seconds$")


def new_run_id() -> str:
    """A fresh id shared by every file of one run (random: it names the run, it is no result)."""
    return uuid.uuid4().hex


def canonical(value: Any) -> bytes:
    """The canonical JSON bytes of ``value``: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


def path_text(path: tuple[str | int, ...]) -> str:
    """``("rules", 0, "threshold")`` -> ``rules[0].threshold``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


#: The context paths split into parts, by their first part: a path is matched only against the patterns it
#: could match, and only at their own length (a report has some 1,300 paths; trying every prefix of each
#: against every pattern cost a tenth of a second per report).
_PATTERNS: dict[str, list[tuple[str, ...]]] = {}
for _pattern in CONTEXT_PATHS:
    _PATTERNS.setdefault(_pattern.split(".")[0], []).append(tuple(_pattern.split(".")))


def _matches(path: tuple[str | int, ...], parts: tuple[str, ...]) -> bool:
    """Whether ``path``'s first ``len(parts)`` parts match the pattern (``*`` is any list index)."""
    return len(parts) <= len(path) and all(
        p == "*" and isinstance(q, int) or p == str(q) for p, q in zip(parts, path, strict=False)
    )


def path_matches(path: tuple[str | int, ...], pattern: str) -> bool:
    """Whether ``path`` is the field ``pattern`` names, or inside it (``rules.*.interval_of``: ``*`` any index)."""
    return _matches(path, tuple(pattern.split(".")))


def is_context(path: tuple[str | int, ...]) -> bool:
    """Whether ``path`` (or an ancestor) is a context field, or a timing leaf."""
    if path and isinstance(path[-1], str) and TIMING_KEY.search(path[-1]):
        return True
    patterns = _PATTERNS.get(path[0], []) if path and isinstance(path[0], str) else []
    return any(_matches(path, parts) for parts in patterns)


def context_fields(report: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Every context field present in ``report``, outermost first, as (path, value)."""

    def walk(node: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
        if path and path != ("provenance", "integrity") and is_context(path):
            yield path, node
            return
        if path == ("provenance", "integrity"):
            return
        if isinstance(node, dict):
            for key, value in node.items():
                yield from walk(value, (*path, key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                yield from walk(value, (*path, i))

    yield from walk(report, ())


def without_run_context(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` without its run context and the digests over it: what two runs of one check share.

    Same policy, data and seed give the same numbers (the README's
    determinism contract), so tests and benchmarks that run a check twice
    (another executor, the Python API) compare what this leaves.
    """

    def strip(node: Any, path: tuple[str | int, ...]) -> Any:
        if isinstance(node, dict):
            return {
                key: strip(value, (*path, key))
                for key, value in node.items()
                if not is_context((*path, key)) and (*path, key) != ("provenance", "integrity")
            }
        if isinstance(node, list):
            return [strip(value, (*path, i)) for i, value in enumerate(node)]
        return node

    stripped: dict[str, Any] = strip(report, ())
    return stripped


def without_integrity(report: dict[str, Any]) -> dict[str, Any]:
    provenance = {k: v for k, v in report["provenance"].items() if k != "integrity"}
    return {**report, "provenance": provenance}


def seal(report: dict[str, Any]) -> dict[str, Any]:
    """Add ``provenance.integrity``: a digest per context field and one of the whole report."""
    body = without_integrity(report)
    integrity = {
        "algorithm": ALGORITHM,
        "fields": {path_text(p): digest(v) for p, v in context_fields(body)},
        "report_sha256": digest(body),
    }
    return {**body, "provenance": {**body["provenance"], "integrity": integrity}}


def with_report_files(report: dict[str, Any], files: list[dict[str, str]]) -> dict[str, Any]:
    """``report`` listing ``files`` (name, and sha256 where given) as written with it, the list sealed in ``fields``."""
    integrity = report["provenance"].get("integrity")
    if integrity is None:  # an unsealed report (written by hand): nothing to seal the list with
        return report
    listed = {**integrity, "fields": {**integrity["fields"], REPORT_FILES: digest(files)}, "report_files": files}
    return {**report, "provenance": {**report["provenance"], "integrity": listed}}


def unsealed_fields(report: dict[str, Any]) -> list[str]:
    """Paths whose digest no longer matches, or that gained or lost one; ``report`` if only the total differs."""
    integrity = report["provenance"].get("integrity") or {}
    stored = integrity.get("fields") or {}
    body = without_integrity(report)
    now = {path_text(p): digest(v) for p, v in context_fields(body)}
    if integrity.get("report_files") is not None:
        now[REPORT_FILES] = digest(integrity["report_files"])
    changed = [p for p in now if stored.get(p) != now[p]] + [p for p in stored if p not in now]
    if integrity.get("algorithm") != ALGORITHM:
        changed.append("provenance.integrity.algorithm")
    if not changed and integrity.get("report_sha256") != digest(body):
        changed.append("provenance.integrity.report_sha256")
    return changed
