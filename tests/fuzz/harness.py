"""What every fuzzed input must give: an exit code of the contract and located one-line errors, in time and bounds.

``run_cli`` runs one command in this process and returns (exit code,
stdout, stderr); ``check_contract`` fails on an internal error, a traceback,
an exit code outside the contract, or an error line that names no file.

``run_cli`` also watches each command (issue 23): it runs under an alarm of
:data:`CASE_SECONDS` (a hang is counted and reported, not waited on: a FIFO
opened for reading blocks in the kernel, and the alarm interrupts it), and
with ``inputs`` it measures the bytes the process read (``rchar`` of
/proc/self/io) against what those inputs may cost: a capped input (policy,
manifest, ledger, report) at most its cap + 1 bytes, a data file its size a
few times over, a sparse data file one block and its footer; and the
process's peak memory, reset before the command (/proc/self/clear_refs).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, settings

from policycheck.interfaces.cli import cli

#: ``file: message``, ``file:line:col: message`` or ``error: file...: message``.
LOCATED = re.compile(r"^(error: )?(?P<file>[^\s:][^:]*?)(:\d+:\d+)?: \S")
#: Lines that are summaries, not errors.
SUMMARY = re.compile(r"^\d+ problems? found$")
#: The first line of the declarations that settle a release's column problems; the lines after it are the block.
ADVICE = re.compile(r"^\d+ columns? to declare; ")


#: Seconds a fuzzed command may run before it counts as a hang.
CASE_SECONDS = int(os.environ.get("POLICYCHECK_FUZZ_TIMEOUT", "60"))
#: The cap of a policy, manifest or ledger (yamlio.MAX_BYTES); a report's is larger but no fuzzed report is.
CAP = 1_000_000
#: Bytes a command may read beyond its inputs' allowance: lazily imported modules, pyproject lookups.
SLACK = 24_000_000
#: Growth of the peak resident memory over the start of a command that counts as exhausting the machine.
MEMORY_LIMIT = 1_000_000_000
#: What the watch counts, per suite (each passes its own counts and list of offenders to run_cli).
WATCHED = ("commands", "hangs", "reads beyond a cap", "memory over 1 GB")


class Hung(BaseException):
    """A command ran past CASE_SECONDS (a BaseException: the CLI's guard must not make it an exit 3)."""


def _ring(signum, frame):
    raise Hung(f"no answer in {CASE_SECONDS} s")


def _proc(path: str, key: str) -> int | None:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> None:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM (Linux 4.0+)


def allowance(paths) -> int:
    """Bytes the inputs ``paths`` may cost a command to read (see the module docstring)."""
    total = 0
    for path in paths:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            continue
        if not stat.S_ISREG(info.st_mode):
            continue  # refused unread
        if str(path).endswith((".yaml", ".yml", ".json", ".toml")):
            total += 3 * min(info.st_size, CAP + 1)
        elif info.st_blocks * 512 < info.st_size // 2:
            total += 4 * (1 << 20)  # sparse: the first block, or a footer
        else:
            total += 8 * info.st_size  # scanned, parsed, hashed, re-read for short rows
    return total + SLACK


def run_cli(*args: str, inputs=None, counts=None, offenders=None) -> tuple[int, str, str]:
    """Run one command in the fuzz worker, under the watch; with ``inputs`` (paths), its reads and memory are measured.

    ``counts`` (a Counter) gets the watch's counts (WATCHED), ``offenders`` the inputs of each case counted.
    A command still running :data:`CASE_SECONDS` + 15 s after it started is a hang even where the
    alarm cannot interrupt it (a C library retrying the open of a FIFO): its worker is killed and
    replaced, the hang counted, and the run goes on.
    """
    counts = counts if counts is not None else {}
    offenders = offenders if offenders is not None else []
    for key in WATCHED:
        counts.setdefault(key, 0)
    done = _worker().run([str(a) for a in args], os.getcwd(), CASE_SECONDS + 15)
    counts["commands"] += 1
    if done is None or done.get("hung"):
        counts["hangs"] += 1
        offenders.append({"hang": list(map(str, args)), "inputs": _describe(inputs)})
        raise AssertionError(f"hung: policycheck {' '.join(map(str, args))}")
    if inputs is not None and done["read"] is not None:
        allowed = allowance(inputs)
        if done["read"] > allowed:
            counts["reads beyond a cap"] += 1
            offenders.append(
                {"read": done["read"], "allowed": allowed, "args": list(map(str, args)), "inputs": _describe(inputs)}
            )
        if done["memory"] > MEMORY_LIMIT:
            counts["memory over 1 GB"] += 1
            offenders.append({"memory": done["memory"], "args": list(map(str, args)), "inputs": _describe(inputs)})
    if done["uncaught"]:
        raise AssertionError(f"uncaught {done['uncaught']}")
    return done["code"], done["stdout"], done["stderr"]


def measured(args: list[str]) -> dict:
    """Run one command in this process: what it gave, the bytes it read and its peak memory growth."""
    previous = signal.signal(signal.SIGALRM, _ring)
    read_before = _proc("/proc/self/io", "rchar:")
    _reset_peak()
    rss_before = (_proc("/proc/self/status", "VmRSS:") or 0) * 1024
    signal.alarm(CASE_SECONDS)
    try:
        result = CliRunner().invoke(cli, args, catch_exceptions=True)
    except Hung:  # not an Exception: CliRunner lets it through
        return {"hung": True}
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    read_after = _proc("/proc/self/io", "rchar:")
    exc = result.exception
    return {
        "code": result.exit_code,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "read": None if read_before is None or read_after is None else read_after - read_before,
        "memory": (_proc("/proc/self/status", "VmHWM:") or 0) * 1024 - rss_before,
        "uncaught": f"{type(exc).__name__}: {exc}" if exc is not None and not isinstance(exc, SystemExit) else None,
    }


class _Worker:
    """A forked process running commands for run_cli, so one stuck where no signal reaches is killed, not waited on."""

    def __init__(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()

    def run(self, args: list[str], cwd: str, timeout: float) -> dict | None:
        """What :func:`measured` gave in the worker, or None (worker killed) when it took longer than ``timeout``."""
        self.conn.send((args, cwd))
        if self.conn.poll(timeout):
            try:
                return self.conn.recv()
            except EOFError:  # the worker died (killed by the kernel, say): a new one takes over
                pass
        self.kill()
        return None

    def kill(self) -> None:
        global _WORKER
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.join()
        self.conn.close()
        _WORKER = None


_WORKER: _Worker | None = None


def _worker() -> _Worker:
    global _WORKER
    if _WORKER is None or not _WORKER.process.is_alive():
        _warm_imports()
        _WORKER = _Worker()
    return _WORKER


def _serve(conn) -> None:
    _warm_up()
    while True:
        try:
            args, cwd = conn.recv()
        except EOFError:
            return
        os.chdir(cwd)
        conn.send(measured(args))


def _warm_imports() -> None:
    """What a check imports, once in the parent: every worker forked from it starts warm."""
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import pyarrow.feather  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    import policycheck.interfaces.check  # noqa: F401
    import policycheck.interfaces.verify  # noqa: F401
    import policycheck.io.yaml_ruamel  # noqa: F401
    import policycheck.report.render  # noqa: F401


def _warm_up() -> None:
    """One cheap check in the new worker, so the first measured command does not pay for lazy imports."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        rows = "age,sex,income\n" + "".join(f"{20 + i},{'MF'[i % 2]},{'ab'[i % 3 > 0]}\n" for i in range(12))
        for name in ("o", "s", "h"):
            (base / f"{name}.csv").write_text(rows.replace("\n2", f"\n{ {'o': 2, 's': 3, 'h': 5}[name] }"))
        (base / "p.yaml").write_text(
            'metadata: {id: w, title: W, version: "1", owner: t}\n'
            "attacker: {model: maximum-knowledge, quasi_identifiers: [age, sex], secrets: [income]}\n"
            "rules:\n  - {id: c, metric: exact_copy_share, threshold: {fail_above: 0.5}}\n"
            "  - {id: d, metric: dcr_share, threshold: {fail_above: 0.9}}\n"
            "  - {id: t, metric: three_way_marginal_tvd, threshold: {fail_above: 0.9}}\n"
        )
        os.chdir(base)
        for args in (
            ["validate", "p.yaml"],
            [
                "check",
                "p.yaml",
                "--original",
                "o.csv",
                "--synthetic",
                "s.csv",
                "--holdout",
                "h.csv",
                "-o",
                "out",
                "-q",
                "--executor",
                "serial",
                "--format",
                "json,html,md,junit,sarif",
            ],
        ):
            measured(args)
        os.chdir("/")


def _describe(paths) -> list[str]:
    out = []
    for path in paths or []:
        try:
            info = os.lstat(path)
            kind = "link" if stat.S_ISLNK(info.st_mode) else oct(stat.S_IFMT(info.st_mode))
            out.append(f"{path} ({kind}, {info.st_size} bytes)")
        except OSError:
            out.append(f"{path} (absent)")
    return out[:8]


def make_special(kind: str, path: Path) -> None:
    """Put a file that is no regular file (or a sparse one) at ``path``, in place of whatever was there."""
    clear(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "null":
        path.symlink_to("/dev/null")
    elif kind == "socket":
        import socket

        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(path))
    elif kind == "directory":
        path.mkdir()
    elif kind == "dangling":
        path.symlink_to(path.with_name("no-such-file"))
    elif kind == "sparse":
        with open(path, "wb") as fh:
            fh.truncate(2 * 1024**3)
    elif kind == "sparse-tail":  # a real start, then 2 GB of holes: the cap must stop the reader, not the size
        with open(path, "wb") as fh:
            fh.write(b"metadata:\n  id: x\n")
            fh.truncate(2 * 1024**3)
    else:
        raise ValueError(kind)


#: What make_special puts in place of an input.
SPECIAL = ["fifo", "zero", "null", "socket", "directory", "dangling", "sparse", "sparse-tail"]


def clear(path: Path) -> None:
    """Remove whatever is at ``path`` (a file, a link, a FIFO, a socket, a folder)."""
    import shutil

    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def check_contract(code: int, stderr: str, files: tuple[str, ...], allowed=(0, 1, 2)) -> None:
    """Raise AssertionError when the run broke the exit-code or error-line contract."""
    assert "internal error" not in stderr, stderr
    assert "Traceback" not in stderr, stderr
    assert code in allowed, f"exit {code}: {stderr}"
    if code == 2:
        # "finding: ..." lines report what loading noticed about the data; they are not errors.
        lines = []
        for line in stderr.splitlines():
            if ADVICE.match(line):
                break  # the pasteable columns: block and flags that follow the errors
            if line and not SUMMARY.match(line) and not line.startswith("finding: "):
                lines.append(line)
        assert lines, "exit 2 without an error line"
        for line in lines:
            match = LOCATED.match(line)
            assert match and any(match.group("file").endswith(f) for f in files), f"unlocated error line: {line!r}"


# Fuzz settings: a few hundred examples by default, thousands with ``-m fuzz``
# (``POLICYCHECK_FUZZ_EXAMPLES=N`` sets how many).
settings.register_profile(
    "policycheck-fuzz",
    deadline=None,
    derandomize=True,  # the default run is reproducible; the fuzz-marked tests explore
    suppress_health_check=list(HealthCheck),
    database=None,
    # Report the failing input as found: shrinking a slow end-to-end example costs minutes.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
settings.load_profile("policycheck-fuzz")
#: Examples per test in the default run.
DEFAULT_EXAMPLES = 150
#: Examples per test under ``-m fuzz``.
FUZZ_EXAMPLES = int(os.environ.get("POLICYCHECK_FUZZ_EXAMPLES", "2000"))


def collector(counts, failures):
    """With ``POLICYCHECK_FUZZ_COLLECT=1`` (the counting runs), record a broken contract and go on.

    Hypothesis stops at the first failure; a run that reports how many of
    10,000 inputs broke the contract must see them all. Without the
    variable a failure fails the test, as usual.
    """

    def collect(fn, *args):
        if not os.environ.get("POLICYCHECK_FUZZ_COLLECT"):
            return fn(*args)
        try:
            fn(*args)
        except AssertionError as exc:
            counts["contract failures"] += 1
            # The input too, so a counted failure can be replayed.
            failures.append({"error": str(exc)[:300], "input": [str(a)[:2000] for a in args[1:]]})

    return collect
