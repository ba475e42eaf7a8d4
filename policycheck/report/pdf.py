"""report.html to report.pdf through headless Chromium, the browser the HTML report is tested in.

A PDF is the HTML printed with its print stylesheet (A4): the decision and
the sign-off block on pages 1-2, raw JSON left out. Every page carries
"page N of M", the run id and the report digest: Chromium fills no
``@page`` margin box, so the report is printed through the DevTools
protocol (``Page.printToPDF`` with a header and footer template), spoken
over ``--remote-debugging-pipe`` (file descriptors 3 and 4, messages ended
by a NUL byte): no port is opened and no library is needed. It is not one
of the formats ``verify`` re-renders (a PDF carries its own creation time):
it is printed before report.json is written, which records the SHA-256 of
its bytes (:func:`policycheck.report.integrity.with_report_files`), and
verify compares that.
"""

from __future__ import annotations

import base64
import contextlib
import html as html_lib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

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


#: The running header and footer of every printed page (Chromium fills the spans by class).
HEADER = (
    '<div style="font-size:7pt;color:#5b6470;width:100%;margin:0 12mm;display:flex;justify-content:space-between">'
    "<span>{title}</span><span>{verdict}</span></div>"
)
FOOTER = (
    '<div style="font-size:6pt;color:#5b6470;width:100%;margin:0 12mm;display:flex;justify-content:space-between">'
    '<span>{mark}</span><span style="white-space:nowrap">page <span class="pageNumber"></span> of '
    '<span class="totalPages"></span></span></div>'
)


def running_texts(html: str) -> tuple[str, str]:
    """The header and footer of every page, from the report's own head (title, verdict, run id and digest)."""
    title = re.search(r"<title>(.*?)</title>", html, re.S)
    mark = re.search(r'<meta name="policycheck-run" content="([^"]*)"', html)
    verdict = re.search(r'<meta name="policycheck-verdict" content="([^"]*)"', html)
    # NOTE: the values stay escaped as they are in the page: the templates are HTML too.
    return (
        HEADER.format(title=title.group(1) if title else "", verdict=verdict.group(1) if verdict else ""),
        FOOTER.format(mark=mark.group(1) if mark else html_lib.escape("run -")),
    )


class _Pipe:
    """The DevTools protocol over Chromium's debugging pipe: requests by id, the answer to each awaited."""

    def __init__(self, write_fd: int, read_fd: int, deadline: float) -> None:
        self.write_fd, self.read_fd, self.deadline = write_fd, read_fd, deadline
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> int:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode("utf-8") + b"\0")
        return self.next_id

    def _message(self) -> dict[str, Any]:
        import select
        import time

        while b"\0" not in self.buffer:
            left = self.deadline - time.monotonic()
            if left <= 0 or not select.select([self.read_fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        wanted = self.send(method, params, session)
        while True:
            message = self._message()
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error'].get('message')}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def wait_for(self, event: str) -> None:
        if any(e.get("method") == event for e in self.events):
            return
        while self._message().get("method") != event:
            pass


def print_pdf(chromium: str, page: Path, profile: Path) -> bytes:
    """Print ``page`` to A4 PDF bytes with the running header and footer (see the module's docstring)."""
    import time

    header, footer = running_texts(page.read_text(encoding="utf-8"))
    ours_read, theirs_write = os.pipe()  # Chromium answers on its descriptor 4
    theirs_read, ours_write = os.pipe()  # and reads requests on its descriptor 3

    def on_start() -> None:  # in the child, before exec: the pipe ends on the descriptors Chromium expects
        import fcntl

        read_end, write_end = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (theirs_read, theirs_write))
        os.dup2(read_end, 3)
        os.dup2(write_end, 4)

    cmd = [chromium, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"]
    proc = subprocess.Popen(  # noqa: S603 - the executable found on PATH, fixed flags
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=on_start,  # noqa: PLW1509 - dup2 only, no Python state
        pass_fds=(3, 4),
    )
    os.close(theirs_read)
    os.close(theirs_write)
    pipe = _Pipe(ours_write, ours_read, time.monotonic() + TIMEOUT)
    try:
        target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        pipe.call("Page.enable", {}, session)
        pipe.call("Page.navigate", {"url": page.as_uri()}, session)
        pipe.wait_for("Page.loadEventFired")
        printed = pipe.call(
            "Page.printToPDF",
            {
                "printBackground": True,
                "preferCSSPageSize": True,
                "displayHeaderFooter": True,
                "headerTemplate": header,
                "footerTemplate": footer,
            },
            session,
        )
        with contextlib.suppress(OSError, EOFError, TimeoutError, RuntimeError):
            pipe.send("Browser.close")
        return base64.b64decode(printed["data"])
    finally:
        for fd in (ours_write, ours_read):
            with contextlib.suppress(OSError):
                os.close(fd)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def write_pdf(html: str, pdf_path: Path) -> Path:
    """Print ``html`` to ``pdf_path`` (written atomically: a temporary file beside it, then a rename)."""
    pdf_path = Path(pdf_path)
    data = print_report(html, pdf_path)
    staged = pdf_path.with_name(f".{pdf_path.name}.{os.getpid()}.tmp")
    staged.write_bytes(data)
    os.replace(staged, pdf_path)
    return pdf_path


def print_report(html: str, pdf_path: Path) -> bytes:
    """The PDF bytes of ``html`` printed (``pdf_path``: where they will go, to name it if Chromium fails)."""
    chromium = require_chromium()
    with tempfile.TemporaryDirectory(prefix="policycheck-pdf-") as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(html, encoding="utf-8")
        try:
            data = print_pdf(chromium, page, Path(tmp) / "profile")
        except (TimeoutError, subprocess.TimeoutExpired):
            raise InvalidInput(
                Problem(str(pdf_path), f"Chromium did not print the report within {TIMEOUT} s")
            ) from None
        except (OSError, EOFError, RuntimeError, KeyError, ValueError) as exc:
            raise InvalidInput(Problem(str(pdf_path), f"Chromium did not print the report ({exc})")) from None
        if not data.startswith(b"%PDF"):
            raise InvalidInput(Problem(str(pdf_path), "Chromium did not print the report (no PDF written)"))
    return data
