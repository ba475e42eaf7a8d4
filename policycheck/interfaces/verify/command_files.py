"""The files a report's synthesizer command names, re-hashed before verify may run the command.

A check that runs a synthesizer ``command:`` records the sha256 of each file
the command names, of the files of a module it runs with ``python -m``, and of
each module those Python files import from their folder (``provenance.synthesizer_files``, see
:func:`policycheck.engine.commands.hash_command_files`): the manifest's hash
covers the command's text, not the script it runs. verify re-hashes them
before it runs anything; a changed or missing one means the command is not run.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any

from policycheck.core.errors import Problem
from policycheck.interfaces.verify.differences import Difference
from policycheck.interfaces.verify.files import Rehashed, resolve_path

#: The ``not re-run`` reasons of a rule whose synthesizer is the release's command.
NO_MANIFEST = (
    "its synthesizer is the release's command, and verify runs no command a report names; re-run it "
    "with --manifest MANIFEST, a release manifest you trust, and --run-synthesizer"
)
NOT_ASKED = (
    "its synthesizer is the command the manifest declares, {command!r}; verify runs it only when asked: "
    "add --run-synthesizer"
)
NOT_RECORDED = (
    "the report does not record the files its synthesizer command names (a report from before they were "
    "recorded), so nothing shows the script that would run is the one the check ran: the command was not run"
)
CHANGED = "its synthesizer command runs {files}, changed since the check (see above): the command was not run"


def shown(report: dict[str, Any], written: str) -> str:
    """A command's file as the report's other paths are shown: the policy's folder (where it ran), then the file."""
    folder = PurePath(report["provenance"]["policy_files"][0]["path"]).parent
    return (folder / written).as_posix()


def rehash_command_files(
    report: dict[str, Any], root: Path, show_external: bool = False
) -> tuple[list[tuple[str, str, bool]], list[Difference], list[Problem]]:
    """Hash each file the report's synthesizer command names again: (confirmed, changed, missing or refused).

    Each is read in the folder the command runs in, the policy's, under ``root``.
    """
    found = Rehashed()
    recorded = report["provenance"].get("synthesizer_files") or []
    if not recorded or not report["provenance"]["policy_files"]:
        return found.confirmed, found.changed, found.missing
    folder = resolve_path(report["provenance"]["policy_files"][0]["path"], root).parent
    for i, f in enumerate(recorded):
        what = _what(f)
        at = f"provenance.synthesizer_files[{i}].sha256"
        found.file(
            shown(report, f["file"]),
            folder / f["file"],
            f["sha256"],
            at,
            root,
            show_external,
            what=what,
            absent=f"{what} is missing",
        )
    return found.confirmed, found.changed, found.missing


def _what(recorded: dict[str, Any]) -> str:
    """What a recorded file is to the command, as verify's lines name it."""
    if recorded.get("imported_by"):
        return f"module {recorded['imported_by']} imports"
    if recorded.get("module"):
        return f"file of module {recorded['module']} (run by the synthesizer command)"
    return "file the synthesizer command names"
