"""Which rules of a plan would run a synthesizer command the release declares.

The attack games re-run the release's synthesizer (``synthesizer: release``):
a Python entry point given through the API, a built-in (``builtin:``), or a
manifest's ``command:``, a program run once per round. A command is the one
thing a check can run that nobody typed: ``check`` runs it only with
``--run-synthesizer`` and ``verify`` only with a manifest the auditor names
and ``--run-synthesizer``, and both ask this module which rules would run one.

A command's text is hashed into the report, but the program it runs is a
file: ``python3 synth.py ...`` runs whatever synth.py holds that day, and the
modules it imports from its folder. So a check that runs a command also
hashes the files the command names (:func:`command_files`), the files of a
module it runs with ``python -m`` (:func:`python_module`), and the modules
those Python files import (:mod:`policycheck.engine.script_imports`), and
``verify`` re-hashes them before it runs anything: a changed script or
module is a difference, and the command is not run.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policycheck.core.plural import noun
from policycheck.engine.compiler import Plan
from policycheck.engine.script_imports import local_imports, module_files, run_time_imports
from policycheck.release.model import Release


@dataclass(frozen=True)
class CommandUse:
    """A rule that would run the command a synthetic set declares."""

    rule_id: str
    set_name: str
    command: str


def needs_command(params: Any, release: Release | None = None) -> bool:
    """Whether a rule re-runs the synthesizer the release declares by a command (the attack games).

    A release whose sets name a built-in synthesizer (``builtin:``) and no
    command runs only policycheck's own code: such a rule needs no command.
    Without a release, any rule with ``synthesizer: release`` may.
    """
    if getattr(params, "synthesizer", None) != "release":
        return False
    if getattr(params, "test", "game") == "distance":  # dp_epsilon_excess_membership without the game
        return False
    if release is not None and not declared_commands(release):
        return not any(d.synthesizer is not None and d.synthesizer.params.get("builtin") for d in release.synthetic)
    return True


def declared_commands(release: Release) -> list[tuple[str, str]]:
    """(set name, command) of every synthetic set that declares a synthesizer command."""
    return [(d.name, d.synthesizer.command) for d in release.synthetic if d.synthesizer and d.synthesizer.command]


def commands_to_run(plan: Plan, release: Release) -> list[CommandUse]:
    """Each rule of ``plan`` that would run a command ``release`` declares, with the first such command."""
    declared = declared_commands(release)
    if not declared:
        return []
    name, command = declared[0]
    return [CommandUse(e.rule.id, name, command) for e in plan.evaluations if needs_command(e.params, release)]


def command_files(template: str, folder: Path) -> list[tuple[str, Path]]:
    """(argument as written, path) of each file ``template`` names, the command run in ``folder``.

    The rule: the template is split into arguments as it is for running; an
    argument, or the value of an ``--option=value`` argument, that is a
    relative path to an existing regular file in ``folder`` (the folder the
    command runs in: the policy's) is such a file; the program too (``./synth.sh``).
    Arguments holding a placeholder (``{input}``, ...) are the run's own files;
    absolute paths (an interpreter such as /usr/bin/python3) name the machine's
    software, not the release's, and are left out. The modules a named Python
    script imports are added by :func:`hash_command_files`.
    """
    from policycheck.methods.reconstruction.external import PLACEHOLDERS

    try:
        arguments = shlex.split(template)
    except ValueError:  # unbalanced quotes: the command cannot run either
        return []
    out: dict[str, Path] = {}
    for argument in arguments:
        if any(p in argument for p in PLACEHOLDERS):
            continue
        candidates = [argument]
        if argument.startswith("-") and "=" in argument:
            candidates.append(argument.split("=", 1)[1])
        for candidate in candidates:
            if not candidate or candidate.startswith("~") or Path(candidate).is_absolute():
                continue
            path = Path(folder) / candidate
            if path.is_file():
                out.setdefault(candidate, path)
    return list(out.items())


#: A Python interpreter, as a command names it: python, python3, python3.11, pypy3, any folder before it.
_PYTHON = re.compile(r"(python|pypy)[0-9.]*(\.exe)?")

#: Options of the Python interpreter followed by a value (``-W error``, ``-X dev``), and ``-c``, ``-m``.
_WITH_VALUE = frozenset("cmWX")


def python_module(template: str) -> str | None:
    """The module a command runs with ``python -m`` (``python3 -u -m synth.main {input}``), else None.

    The command's first Python interpreter is read as Python reads its options: flags may be
    joined (``-um synth``) and ``-m`` may hold its value (``-msynth``); the interpreter's first
    argument that is not an option (a script) or ``-c`` ends the search.
    """
    from policycheck.methods.reconstruction.external import PLACEHOLDERS

    try:
        arguments = shlex.split(template)
    except ValueError:
        return None
    start = next((i for i, a in enumerate(arguments) if _PYTHON.fullmatch(os.path.basename(a))), None)
    if start is None:
        return None
    rest = iter(arguments[start + 1 :])
    for argument in rest:
        if argument.startswith("--") and argument != "--":
            continue  # a long option (--version): none names a module
        if argument in ("-", "--") or not argument.startswith("-"):
            return None  # a script, stdin, or the end of the options
        for k, flag in enumerate(argument[1:], start=1):
            if flag in _WITH_VALUE:
                value = argument[k + 1 :] or next(rest, "")
                if flag == "c":
                    return None
                if flag == "m":
                    return value if value and not any(p in value for p in PLACEHOLDERS) else None
                break
    return None


def hash_command_files(plan: Plan, release: Release) -> list[dict[str, str]] | None:
    """``provenance.synthesizer_files``: the files of the command ``plan`` runs, hashed; None when it runs none.

    In order: each file the command names; each module a named ``.py`` script imports from its
    folder (``imported_by``: the script, as the command names it); the files of the module the
    command runs with ``python -m`` (``module``: its name), then the modules those import from the
    command's folder (``module`` and ``imported_by``). Paths are relative to the command's folder.
    """
    from policycheck.io.files import sha256_file

    files = _command_files_of(plan, release)
    if files is None:
        return None
    # ``marks`` in the order of the report's CommandFile fields: verify checks the keys' order.
    return [{"file": written, "sha256": sha256_file(path, what), **marks} for path, written, what, marks in files]


def run_time_import_finding(plan: Plan, release: Release) -> str | None:
    """A finding when a Python file of the command ``plan`` runs imports by a name or path computed at run
    time (:func:`policycheck.engine.script_imports.run_time_imports`): the files so reached are not hashed,
    so ``verify`` could not tell that they changed. None when it runs no command, or none does."""
    files = _command_files_of(plan, release)
    sites = [
        f"{written}:{line} ({what})"
        for path, written, _, _ in files or []
        if path.suffix == ".py"
        for line, what in run_time_imports(path)
    ]
    if not sites:
        return None
    listed = sites[0] if len(sites) == 1 else f"{', '.join(sites[:-1])} and {sites[-1]}"
    return (
        f"synthesizer command: {listed} {noun(len(sites), 'imports', 'import')} by a name or from a folder set "
        "when the command runs: the files reached so are not among the hashed synthesizer files, and verify "
        "cannot tell whether they changed; name those files in the command, or import them by name from the "
        "script's folder"
    )


def _command_files_of(plan: Plan, release: Release) -> list[tuple[Path, str, str, dict[str, str]]] | None:
    """``(path, as written, what it is, marks)`` of each file of the command ``plan`` runs, once each, in
    :func:`hash_command_files`' order; None when it runs none."""
    uses = commands_to_run(plan, release)
    if not uses:
        return None
    folder = plan.loaded.path.parent
    files: list[tuple[Path, str, str, dict[str, str]]] = []
    listed: set[Path] = set()

    def add(path: Path, written: str, what: str, **marks: str) -> None:
        if path.resolve() not in listed:
            listed.add(path.resolve())
            files.append((path, written, what, marks))

    def relative(path: Path) -> str:
        return Path(os.path.relpath(path, folder.absolute())).as_posix()

    named = command_files(uses[0].command, folder)
    for written, path in named:
        add(path, written, "file the synthesizer command names")
    for written, path in named:
        if path.suffix == ".py":
            for imported in local_imports(path):
                add(imported, relative(imported), f"module {written} imports", imported_by=written)
    module = python_module(uses[0].command)
    if module is not None:
        runs = module_files(module, folder)
        for path in runs:
            add(path, relative(path), f"file of module {module}", module=module)
        for path in runs:
            for imported in local_imports(path, base=folder):
                by = relative(path)
                add(imported, relative(imported), f"module {by} imports", imported_by=by, module=module)
    return files
