"""The modules a Python script imports from its own folder, found by reading it, never by running it.

A synthesizer command such as ``python3 synth.py {input} {output}`` runs
synth.py and every module it imports from its folder (``from helpers import
fit``): Python looks in the script's folder first. Hashing synth.py alone
would let helpers.py change unseen between a check and its verification, so
the check hashes those modules too (:func:`policycheck.engine.commands.hash_command_files`).

The imports are read from the source with :mod:`ast`; nothing is executed.
Followed: ``import a.b``, ``from a.b import c`` and ``importlib.import_module("a.b")``
with the name written out (each package's ``__init__.py`` on the way, ``a/b.py``,
and ``a/b/c.py`` when ``c`` is a submodule), relative imports inside the folder's
packages, at any depth of the code (in functions, under ``try``), and the modules
found in turn. A name not found under the folder is the machine's software (the
standard library, an installed package) and is left out. Not followed: a name computed at run time
(``importlib.import_module(name)``, ``__import__``) and a path the script adds
to ``sys.path``: name such files in the command itself. :func:`run_time_imports`
finds where a file does either, so that the check can say its hashes may miss
files (:func:`policycheck.engine.commands.run_time_import_finding`).

A command may name no script but a module, ``python3 -m synth.main``: Python
then looks in the folder the command runs in first, and runs each package's
``__init__.py`` on the way and the module (a package's ``__main__.py``):
:func:`module_files` finds them, and their imports are followed from that
folder.
"""

from __future__ import annotations

import ast
from pathlib import Path


def local_imports(script: Path, base: Path | None = None) -> list[Path]:
    """The module files under ``base`` that ``script`` imports, and those they import, in order found.

    ``base``: the folder Python looks in first, the script's own (the default) or, for a module run
    with ``-m``, the folder the command runs in. Paths are as Python finds them from the folder (a
    module that is a link keeps its own name); a file reached twice, by two names, is listed once.
    """
    base = script.absolute().parent if base is None else base.absolute()
    found: list[Path] = []
    pending = [script.absolute()]
    seen = {script.resolve()}
    while pending:
        module = pending.pop(0)
        for path in _imported_files(module, base):
            if path.resolve() not in seen:
                seen.add(path.resolve())
                found.append(path)
                pending.append(path)
    return found


def module_files(name: str, folder: Path) -> list[Path]:
    """The files ``python -m name`` runs from ``folder``: each package's ``__init__.py`` on the way, then
    the module's file (a package: its ``__init__.py`` and ``__main__.py``); none when the module is not
    under ``folder`` (the machine's software, or no such module)."""
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return []
    files = _resolve(folder.absolute(), parts)
    package = folder.absolute().joinpath(*parts)
    if (package / "__main__.py").is_file():
        return [*files, package / "__main__.py"]
    found = bool(files) and files[-1] in (package / "__init__.py", package.with_suffix(".py"))
    return files if found else []


def _imported_files(module: Path, base: Path) -> list[Path]:
    """The files under ``base`` that ``module``'s import statements name (none when it does not parse)."""
    try:
        tree = ast.parse(module.read_bytes(), filename=str(module))
    except (OSError, SyntaxError, ValueError):  # unreadable, not Python 3, a NUL byte: nothing to follow
        return []
    files: list[Path] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                files += _resolve(base, alias.name.split("."))
        elif isinstance(node, ast.ImportFrom):
            origin = base if node.level == 0 else _package_of(module, node.level)
            if origin is None or not origin.is_relative_to(base):
                continue
            parts = node.module.split(".") if node.module else []
            files += _resolve(origin, parts)
            for alias in node.names:  # ``from pkg import mod`` imports pkg/mod.py when it is a submodule
                if alias.name != "*":
                    files += _resolve(origin, [*parts, alias.name], submodule_only=True)
        elif isinstance(node, ast.Call) and (name := _named_import(node)) is not None:
            files += _resolve(base, name.split("."))  # importlib.import_module("helpers"): import helpers
    return files


def _package_of(module: Path, level: int) -> Path | None:
    """The folder a relative import of ``level`` dots starts from in ``module`` (1: the module's own package)."""
    folder = module.parent
    for _ in range(level - 1):
        if folder.parent == folder:
            return None
        folder = folder.parent
    return folder


def _resolve(origin: Path, parts: list[str], *, submodule_only: bool = False) -> list[Path]:
    """The files importing ``parts`` (a dotted name split) from ``origin`` runs: packages' ``__init__.py``, then
    the module. ``submodule_only``: only the last part's own file (``from pkg import name``, where ``name`` may
    be a function of pkg rather than a module)."""
    files: list[Path] = []
    folder = origin
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        package = folder / part
        if (package / "__init__.py").is_file():
            if not submodule_only or last:
                files.append(package / "__init__.py")
            folder = package
        elif (folder / f"{part}.py").is_file():
            if not submodule_only or last:
                files.append(folder / f"{part}.py")
            break  # a module's attributes are not files
        elif package.is_dir():
            folder = package  # a namespace package: no file of its own
        else:
            break  # not under the folder: the machine's software
    return files


#: Calls that import or run code by a name or path computed at run time, by the last part of their
#: name (``importlib.import_module``, a bare ``import_module`` imported from importlib, ...).
_RUN_TIME_CALLS = frozenset(
    {"import_module", "spec_from_file_location", "SourceFileLoader", "load_source", "run_path", "run_module"}
    | {"addsitedir"}
)
#: Built-ins that do so, called by their bare name only (``app.exec()`` is another program's method).
_RUN_TIME_BUILTINS = frozenset({"__import__", "exec", "execfile"})
#: Methods of ``sys.path`` that add a folder to import from.
_PATH_CHANGES = frozenset({"insert", "append", "extend"})


def run_time_imports(module: Path) -> list[tuple[int, str]]:
    """Where ``module`` imports or runs code that :func:`local_imports` cannot follow: ``(line, what)``, in order.

    ``what`` is the call as written (``importlib.import_module``, ``sys.path.insert``) or
    ``sys.path =`` for an assignment to it (``+=`` and an item's too). Read with :mod:`ast`,
    never run; a file that does not parse has none.
    """
    try:
        tree = ast.parse(module.read_bytes(), filename=str(module))
    except (OSError, SyntaxError, ValueError):
        return []
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = _called_name(func)
            on_path = isinstance(func, ast.Attribute) and _is_sys_path(func.value) and func.attr in _PATH_CHANGES
            run_time = name in _RUN_TIME_CALLS or (isinstance(func, ast.Name) and name in _RUN_TIME_BUILTINS)
            if (run_time and _named_import(node) is None) or on_path:
                found.append((node.lineno, ast.unparse(func)))
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_is_sys_path(t) or (isinstance(t, ast.Subscript) and _is_sys_path(t.value)) for t in targets):
                found.append((node.lineno, "sys.path ="))
    return sorted(set(found))


def _named_import(call: ast.Call) -> str | None:
    """The module ``importlib.import_module("a.b")`` or ``__import__("a.b")`` imports, when written out whole
    (an absolute name, no ``package``): followed as ``import a.b`` is. None for any other call."""
    name = _called_name(call.func)
    # A package, a level or a fromlist may make the name relative, or bring more modules: not followed.
    if name not in ("import_module", "__import__") or len(call.args) != 1 or call.keywords:
        return None
    first = call.args[0]
    if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
        return None
    parts = first.value.split(".")
    return first.value if all(part.isidentifier() for part in parts) else None


def _called_name(func: ast.expr) -> str | None:
    """The last part of a called name: ``import_module`` of ``importlib.import_module(...)``, or a bare name."""
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _is_sys_path(node: ast.expr) -> bool:
    """Whether ``node`` is ``sys.path``."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )
