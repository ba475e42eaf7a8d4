"""What verify reads: report.json itself, the files it names (re-hashed, within the root), the reports beside it."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.interfaces.verify.differences import Difference
from policycheck.io.files import open_regular, read_json, stat_input
from policycheck.release.load import sha256_file
from policycheck.report.integrity import path_text
from policycheck.report.model import Report, first_key_out_of_order

#: Largest report.json read, in bytes (the demo's is 120 kB; a report grows by about 10 kB a rule).
MAX_REPORT_BYTES = 64_000_000


#: Why a file outside the root is not read (the end of the refusal's line).
OUTSIDE = "the folder verify reads: not read (--root DIR names another folder, --show-external reads files outside it)"


def read_report(path: Path) -> dict[str, Any]:
    """Load report.json and check it against the published schema (exit 2 if it is not one).

    A key written twice, NaN or Infinity, a file over :data:`MAX_REPORT_BYTES`
    or one that is not a regular file is refused before it is parsed
    (:func:`policycheck.io.files.read_json`).
    """
    path = Path(path)
    name = display_path(path)
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise InvalidInput(Problem(name, "report not found")) from None
    except (OSError, ValueError):
        pass  # a folder it cannot be read from, a NUL in the name: read_json says so in one line
    data = read_json(path, "report", MAX_REPORT_BYTES)
    if not isinstance(data, dict):
        raise InvalidInput(Problem(name, f"not a policycheck report: a JSON {type(data).__name__}, not an object"))
    try:
        Report.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = path_text(tuple(first["loc"]))
        raise InvalidInput(Problem(name, f"not a policycheck report: {where}: {first['msg']}")) from None
    return data


def resolve_path(path: str, root: Path) -> Path:
    p = Path(path)
    return p if p.is_absolute() else root / p


def default_root(report_path: Path) -> Path:
    """The folder verify reads when no ``--root`` is given: the one holding report.json, never one the report names."""
    return Path(report_path).resolve().parent


#: Where each list of hashed files sits in report.json.
HASHED_FILE_LISTS = ("policy_files", "manifest", "metadata", "data_files", "referenced_files")


def named_files(report: dict[str, Any]) -> list[dict[str, str]]:
    """Every file the report names with a hash: policies, manifest, data, ledgers and matrices.

    Each entry also carries ``at``, the JSON path of its hash in the report.
    """
    prov = report["provenance"]
    out: dict[str, dict[str, str]] = {}
    for key in HASHED_FILE_LISTS:
        entries = prov.get(key)
        single = key in ("manifest", "metadata")
        if single:
            entries = [entries] if entries else []
        for i, f in enumerate(entries or []):
            at = f"provenance.{key}.sha256" if single else f"provenance.{key}[{i}].sha256"
            out.setdefault(f["path"], {**f, "at": at})
    return list(out.values())


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError):
        return False


@dataclass
class Rehashed:
    """Files hashed again: confirmed (path, sha256, inside the root), changed, and why any was not read."""

    confirmed: list[tuple[str, str, bool]] = field(default_factory=list)
    changed: list[Difference] = field(default_factory=list)
    missing: list[Problem] = field(default_factory=list)

    def file(
        self, name: str, path: Path, sha256: str, at: str, root: Path, show_external: bool, *, what: str, absent: str
    ) -> None:
        """``path`` (shown as ``name``) hashed again and compared with ``sha256``, recorded at ``at``.

        A file outside ``root`` (links followed) is not read unless ``show_external``: a report
        from someone else must not make verify reveal what files elsewhere on this machine contain.
        ``what`` names the kind of file in that refusal; ``absent`` is the problem of a missing one.
        """
        inside = _inside(path, root)
        if not inside and not show_external:
            self.missing.append(Problem(name, f"{what} is outside {display_path(root)}, {OUTSIDE}"))
            return
        if not path.exists() and not path.is_symlink():
            self.missing.append(Problem(name, absent))
            return
        try:
            stat_input(path, "input")
            sha = sha256_file(path)
        except InvalidInput as exc:
            self.missing.extend(exc.problems)
            return
        if sha == sha256:
            self.confirmed.append((name, sha, inside))
        else:
            self.changed.append(Difference("file", name, "sha256", sha256, sha, at=at))


def rehash(
    report: dict[str, Any], root: Path, show_external: bool = False, root_given: bool = True
) -> tuple[list[tuple[str, str, bool]], list[Difference], list[Problem]]:
    """Hash every named file again: (confirmed, changed, missing or refused); see :meth:`Rehashed.file`."""
    found = Rehashed()
    absent = (
        "file named in the report is missing"
        if root_given
        else f"file named in the report is not in {display_path(root)}, the folder verify "
        "reads (the report's own): give --root with the folder the check ran in"
    )
    for f in named_files(report):
        path = resolve_path(f["path"], root)
        found.file(
            f["path"], path, f["sha256"], f["at"], root, show_external, what="file named in the report", absent=absent
        )
    return found.confirmed, found.changed, found.missing


def edited_after_the_run(report_path: Path, report: dict[str, Any]) -> list[Difference]:
    """What of the report at ``report_path`` changed since its check wrote it, without re-running anything.

    A field whose digest no longer matches its seal (:mod:`policycheck.report.integrity`), a
    missing seal, and a report file beside it that is not the one written with it. A
    report.json whose keys were re-ordered (``jq -S``) is named itself; the renders follow its
    key order, so where their digests are not recorded they are not compared with it (they
    would all differ, untouched).
    """
    from policycheck.report.integrity import unsealed_fields

    if report["provenance"].get("integrity") is None:
        sealed = [Difference("sealed", "provenance.integrity", "missing")]
    else:
        sealed = [Difference("sealed", p) for p in unsealed_fields(report)]
    misordered = first_key_out_of_order(report)
    if misordered is None:
        return sealed + check_outputs(report_path, report)
    path, earlier, later = misordered
    where = f"in {path_text(path)}" if path else "at the top level"
    listed = (report["provenance"].get("integrity") or {}).get("report_files") or []
    if listed and all(f.get("sha256") for f in listed):  # the files are checked by their digests, not rendered
        after = ": its values still match their digests" if not sealed else ""
    else:
        intact = "its values still match their digests, but " if not sealed else ""
        after = f": {intact}the report files beside it render from that order and are not compared"
    return [
        *sealed,
        Difference(
            "output",
            display_path(report_path),
            f"its keys are not in the order policycheck writes them ({where}, {earlier!r} comes before "
            f"{later!r}), so it was re-serialised after the run{after}",
        ),
        *check_outputs(report_path, report, renders=False),
    ]


def check_outputs(report_path: Path, report: dict[str, Any], renders: bool = True) -> list[Difference]:
    """The report files beside report.json: each the one written with it, and the set complete.

    A report that lists the files written with it (``provenance.integrity.report_files``)
    must have each of them: a missing one is named, each must have the SHA-256 recorded
    for it, and a report.pdf it does not list is not its own. A digest is checked, not a
    render: another build of policycheck renders report.json otherwise, and a report is
    verified months after it was made. A render whose digest is not recorded (reports from
    before every file's was) is compared with what report.json renders to, byte for byte;
    ``renders=False`` leaves those uncompared (report.json's key order is not the one they
    were rendered from).
    """
    from policycheck.io.outputs import REPORT_FILES
    from policycheck.report.render import OUTPUTS

    folder = Path(report_path).parent
    listed = (report["provenance"].get("integrity") or {}).get("report_files")
    recorded = {f["name"]: f.get("sha256") for f in listed or []}
    out = []
    for name in dict.fromkeys([*recorded, *REPORT_FILES[1:]]):
        path = folder / name
        shown = display_path(path)
        if not os.path.lexists(path):
            if name in recorded:
                out.append(Difference("output", shown, "missing: written with this report"))
            continue
        fmt_name = next((f for f, n in OUTPUTS.items() if n == name), None)
        if recorded.get(name):
            # The bytes written with the report: whatever code renders it now, and in whatever key order.
            out += _check_digest(path, recorded[name])
        elif fmt_name is not None:
            if renders:
                out += _check_render(path, fmt_name, report)
        elif listed is not None:
            why = (
                "written with this report, which records no digest to check it by"
                if name in recorded
                else "not written with this report, which records no digest to check it by "
                "(printed from another run, or since)"
            )
            out.append(Difference("output", shown, why))
    return out


def _check_render(path: Path, fmt_name: str, report: dict[str, Any]) -> list[Difference]:
    """``path`` must be what report.json renders to in ``fmt_name``, byte for byte."""
    from policycheck.report.render import render_format

    try:
        expected = render_format(fmt_name, report)
    except Exception as exc:  # noqa: BLE001 - a tampered report may not render at all
        return [Difference("output", display_path(path), f"report.json no longer renders ({type(exc).__name__})")]
    wanted = expected.encode("utf-8")
    try:
        with open_regular(path, "report") as fh:  # a FIFO beside report.json is refused, not waited on
            same = fh.read(len(wanted) + 1) == wanted
    except InvalidInput as exc:
        return [Difference("output", display_path(path), exc.problems[0].message)]
    if same:
        return []
    why = (
        "differs from what report.json renders to with this policycheck: edited, from another run, or rendered "
        "by other policycheck code (the report records no digest of the file to tell which)"
    )
    return [Difference("output", display_path(path), why)]


def _check_digest(path: Path, recorded: str) -> list[Difference]:
    """``path`` must have the SHA-256 report.json records for it (report.pdf: printed, not rendered again)."""
    digest = hashlib.sha256()
    try:
        with open_regular(path, "report") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except InvalidInput as exc:
        return [Difference("output", display_path(path), exc.problems[0].message)]
    except OSError as exc:
        return [Difference("output", display_path(path), f"cannot read report file: {exc.strerror}")]
    if digest.hexdigest() == recorded:
        return []
    return [Difference("file", display_path(path), "sha256", recorded, digest.hexdigest())]
