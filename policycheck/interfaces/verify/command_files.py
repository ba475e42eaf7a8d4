"""The files a report's synthesizer command names, re-hashed before verify may run the command.

A check that runs a synthesizer ``command:`` records the sha256 of each file
the command names (``provenance.synthesizer_files``, see
:func:`policycheck.engine.commands.command_files`): the manifest's hash
covers the command's text, not the script it runs. verify re-hashes them
before it runs anything; a changed or missing one means the command is not run.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.interfaces.verify.differences import Difference
from policycheck.interfaces.verify.files import OUTSIDE, resolve_path
from policycheck.io.files import sha256_file, stat_input

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
CHANGED = "its synthesizer command names {files}, changed since the check (see above): the command was not run"


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
    confirmed: list[tuple[str, str, bool]] = []
    changed: list[Difference] = []
    missing: list[Problem] = []
    recorded = report["provenance"].get("synthesizer_files") or []
    if not recorded or not report["provenance"]["policy_files"]:
        return confirmed, changed, missing
    folder = resolve_path(report["provenance"]["policy_files"][0]["path"], root).parent
    for i, f in enumerate(recorded):
        name = shown(report, f["file"])
        path = folder / f["file"]
        try:
            inside = path.resolve().is_relative_to(root.resolve())
        except OSError:
            inside = False
        if not inside and not show_external:
            missing.append(
                Problem(name, f"file the synthesizer command names is outside {display_path(root)}, {OUTSIDE}")
            )
            continue
        if not path.exists() and not path.is_symlink():
            missing.append(Problem(name, "file the synthesizer command names is missing"))
            continue
        try:
            stat_input(path, "input")
            sha = sha256_file(path)
        except InvalidInput as exc:
            missing.extend(exc.problems)
            continue
        if sha == f["sha256"]:
            confirmed.append((name, sha, inside))
        else:
            changed.append(
                Difference("file", name, "sha256", f["sha256"], sha, at=f"provenance.synthesizer_files[{i}].sha256")
            )
    return confirmed, changed, missing
