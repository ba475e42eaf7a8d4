"""report.html to report.pdf through headless Chromium, the browser the HTML report is tested in.

A PDF is the HTML printed with its print stylesheet (A4): the decision and
the sign-off block on pages 1-2, raw JSON left out. It is not one of the
formats ``verify`` re-renders (a PDF carries its own creation time); the
HTML it is printed from is.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from policycheck.core.errors import InvalidInput, Problem

#: Headless, and no background networking: on a closed network Chromium's
#: update, sync and lookup connections otherwise fail at every start.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--no-pdf-header-footer",
)
#: Seconds a print may take before it is given up.
TIMEOUT = 120


def find_chromium() -> str | None:
    """The Chromium executable on PATH (``chromium`` or ``chromium-browser``), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> str:
    """Chromium's path, or exit 2 with one line saying how to get it (before any computation)."""
    found = find_chromium()
    if found is None:
        raise InvalidInput(
            Problem(
                "--format pdf",
                "needs headless Chromium (chromium or chromium-browser on PATH, "
                "e.g. `apt-get install chromium`); or write html and print it",
            )
        )
    return found


def write_pdf(html: str, pdf_path: Path) -> Path:
    """Print ``html`` to ``pdf_path`` (written atomically: a temporary file beside it, then a rename)."""
    chromium = require_chromium()
    pdf_path = Path(pdf_path)
    with tempfile.TemporaryDirectory(prefix="policycheck-pdf-") as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(html, encoding="utf-8")
        printed = Path(tmp) / "report.pdf"
        cmd = [chromium, *FLAGS, f"--user-data-dir={Path(tmp) / 'profile'}", f"--print-to-pdf={printed}", page.as_uri()]
        try:
            subprocess.run(cmd, capture_output=True, timeout=TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            raise InvalidInput(
                Problem(str(pdf_path), f"Chromium did not print the report within {TIMEOUT} s")
            ) from None
        if not printed.is_file() or printed.stat().st_size == 0:
            raise InvalidInput(Problem(str(pdf_path), "Chromium did not print the report (no PDF written)"))
        staged = pdf_path.with_name(f".{pdf_path.name}.{os.getpid()}.tmp")
        shutil.copyfile(printed, staged)
        os.replace(staged, pdf_path)
    return pdf_path
