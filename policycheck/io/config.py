"""Settings from ``[tool.policycheck]`` in pyproject.toml, overridden by flags.

::

    [tool.policycheck]
    policies = ["policies/*.policy.yaml"]   # paths or globs
    release = "release/release.yaml"
    output = "reports"
    formats = ["json", "html", "sarif"]
    fail-on-warn = true
    seed = 20261121
    workers = 2

The nearest pyproject.toml holding a ``[tool.policycheck]`` table, from the
working folder up, is used (as ruff and pytest find theirs); paths in it are
relative to its folder. A flag always wins over the file, the file over the
default. ``policycheck config`` prints the settings in force and where each
came from.
"""

from __future__ import annotations

import glob
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policycheck.core.errors import InvalidInput, Problem, display_path

#: Report formats a run can write.
FORMATS = ("json", "html", "md", "junit", "sarif")

#: Every setting with its default, in the order ``policycheck config`` shows them.
DEFAULTS: dict[str, Any] = {
    "policies": [],
    "release": None,
    "output": "reports",
    "formats": ["json", "html", "md"],
    "fail-on-warn": False,
    "seed": None,
    "workers": None,
}


@dataclass
class Settings:
    """The settings in force, and where each came from (``flag``, the pyproject path, or ``default``)."""

    values: dict[str, Any]
    sources: dict[str, str]
    pyproject: Path | None = None
    base: Path = field(default_factory=lambda: Path("."))

    def __getitem__(self, key: str) -> Any:
        return self.values[key]


def find_pyproject(start: Path | None = None) -> Path | None:
    """The nearest pyproject.toml with a ``[tool.policycheck]`` table, from ``start`` up."""
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if path.exists() and "policycheck" in _read(path).get("tool", {}):
            return path
    return None


def load_settings(flags: dict[str, Any], start: Path | None = None) -> Settings:
    """Defaults, then pyproject.toml, then every flag that was given (not None)."""
    pyproject = find_pyproject(start)
    values = dict(DEFAULTS)
    sources = dict.fromkeys(DEFAULTS, "default")
    base = Path(".")
    if pyproject is not None:
        base = Path(os.path.relpath(pyproject.parent))
        for key, value in _validate(pyproject, _read(pyproject)["tool"]["policycheck"]).items():
            values[key] = _rebase(key, value, base)
            sources[key] = display_path(pyproject)
    for key, value in flags.items():
        if value is not None and value != () and value != []:
            values[key] = value
            sources[key] = "flag"
    return Settings(values, sources, pyproject, base)


def expand_policies(patterns: list[str | Path]) -> list[Path]:
    """Paths and globs (``policies/*.policy.yaml``, ``**`` too) to files, in the order given.

    A pattern that names an existing file is taken as is; a glob matching
    nothing is a usage problem (exit 2), as a missing file is.
    """
    out: list[Path] = []
    for pattern in patterns:
        text = str(pattern)
        if Path(text).exists() or not glob.has_magic(text):
            matches = [text]
        else:
            matches = sorted(glob.glob(text, recursive=True))
            if not matches:
                raise InvalidInput(Problem(text, "no policy file matches this pattern"))
        for match in matches:
            if Path(match) not in out:
                out.append(Path(match))
    return out


def report_folders(out_dir: Path, policies: list[Path]) -> list[Path]:
    """One report folder per policy: ``out_dir`` itself for one policy, else ``out_dir/<policy name>``.

    The name is the file name without ``.policy.yaml``/``.yaml``; two
    policies of one name in different folders get their folder's name too.
    """
    if len(policies) == 1:
        return [out_dir]
    names = [_policy_name(p) for p in policies]
    out = []
    for path, name in zip(policies, names, strict=True):
        if names.count(name) > 1:
            name = f"{path.parent.name or 'root'}-{name}"
        out.append(out_dir / name)
    return out


def show(settings: Settings) -> str:
    """The settings as TOML lines, each with where it came from."""
    lines = [
        f"# pyproject: {display_path(settings.pyproject) if settings.pyproject else 'none found'}",
        "[tool.policycheck]",
    ]
    for key in DEFAULTS:
        value = settings.values[key]
        if value is None:
            lines.append(f"# {key} is unset  # {settings.sources[key]}")
        else:
            lines.append(f"{key} = {_toml(value)}  # {settings.sources[key]}")
    return "\n".join(lines) + "\n"


def _policy_name(path: Path) -> str:
    name = path.name
    for suffix in (".policy.yaml", ".policy.yml", ".yaml", ".yml"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


#: Largest pyproject.toml read, in bytes.
MAX_PYPROJECT_BYTES = 1_000_000


def _read(path: Path) -> dict[str, Any]:
    from policycheck.io.files import read_capped

    raw = read_capped(path, "pyproject", MAX_PYPROJECT_BYTES)  # a FIFO or /dev/zero is refused unread
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(Problem(display_path(path), f"invalid TOML: {exc}")) from None


def _validate(path: Path, table: Any) -> dict[str, Any]:
    """Check ``[tool.policycheck]``: known keys, right types; every problem at once."""
    name = display_path(path)
    if not isinstance(table, dict):
        raise InvalidInput(Problem(name, "[tool.policycheck] must be a table"))
    problems = []
    out: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        where = f"[tool.policycheck] {raw_key}"
        if key not in DEFAULTS:
            import difflib

            close = difflib.get_close_matches(key, list(DEFAULTS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            problems.append(Problem(name, f"{where}: unknown key{hint}"))
            continue
        if key == "policies":
            value = [value] if isinstance(value, str) else value
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
            expected = "a path or glob, or a list of them"
        elif key in ("release", "output"):
            ok, expected = isinstance(value, str), "a path"
        elif key == "formats":
            value = [f.strip() for f in value.split(",")] if isinstance(value, str) else value
            ok = isinstance(value, list) and all(v in FORMATS for v in value)
            expected = "formats from " + ", ".join(FORMATS)
        elif key == "fail-on-warn":
            ok, expected = isinstance(value, bool), "true or false"
        elif key == "seed":
            ok, expected = isinstance(value, int) and not isinstance(value, bool) and value >= 0, "an integer >= 0"
        else:  # workers
            ok, expected = isinstance(value, int) and not isinstance(value, bool) and value >= 1, "an integer >= 1"
        if not ok:
            problems.append(Problem(name, f"{where}: expected {expected}, got {value!r}"))
        else:
            out[key] = value
    if problems:
        raise InvalidInput(problems)
    return out


def _rebase(key: str, value: Any, base: Path) -> Any:
    """Paths in pyproject.toml are relative to its folder."""
    if key == "policies":
        return [str(base / v) if not Path(v).is_absolute() else v for v in value]
    if key in ("release", "output") and value != "-":
        return str(base / value) if not Path(value).is_absolute() else value
    return value


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, (int, float)):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
