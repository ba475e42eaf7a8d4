"""Start-up cost of the commands that touch no data (a script, not a test).

For ``--help``, ``validate``, ``plan``, ``metrics``, ``schema``, ``init`` and
``config``: the CPU time (user + system) and wall time of a fresh
``python -m policycheck`` process, the median (and the CPU minimum, the least
disturbed by other load) of ``--repeat`` runs, and the
heavy libraries the command imported (numpy, pandas, scipy, numba,
dp_accounting, scikit-learn, highspy, pyarrow). Target: validate under 0.5 s
of CPU (issue 12).

The runs use cached bytecode, as an installed package has: a warm-up run
writes it even where PYTHONDONTWRITEBYTECODE is set (compiling policycheck's
sources afresh costs about 0.3 s of CPU per run). ``plan`` without a release builds a stand-in release
of column names only, so it imports no heavy library either.

Run from the repository root: ``.venv/bin/python bench/bench_startup.py [--repeat 5]``
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HEAVY = ("numpy", "pandas", "scipy", "numba", "dp_accounting", "sklearn", "highspy", "pyarrow")
POLICY = "policies/demo.policy.yaml"


def commands(scratch: str) -> dict[str, list[str]]:
    return {
        "--help": ["--help"],
        "validate": ["validate", POLICY],
        "plan": ["plan", POLICY],
        "metrics": ["metrics"],
        "schema": ["schema"],
        "init": ["init", os.path.join(scratch, "starter.policy.yaml")],
        "config": ["config"],
    }


#: The environment of every run: bytecode cached as in an installed package.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(args: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "policycheck", *args], check=False, capture_output=True, env=ENV)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def heavy_imports(args: list[str]) -> list[str]:
    """Heavy top-level packages the command imported (from -X importtime)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "policycheck", *args],
        check=False,
        capture_output=True,
        text=True,
        env=ENV,
    )
    seen = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return [name for name in HEAVY if name in seen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
        f"median of {opts.repeat} runs"
    )
    print(f"{'command':<10} {'cpu s':>6} {'min':>5} {'wall s':>7}  heavy libraries imported")
    with tempfile.TemporaryDirectory() as scratch:
        for name, args in commands(scratch).items():
            cpu, wall = [], []
            run_once(args)  # warm-up: writes the bytecode cache
            for _ in range(opts.repeat):
                if name == "init":
                    path = os.path.join(scratch, "starter.policy.yaml")
                    if os.path.exists(path):
                        os.unlink(path)
                c, w = run_once(args)
                cpu.append(c)
                wall.append(w)
            if name == "init":
                os.unlink(os.path.join(scratch, "starter.policy.yaml"))
            heavy = heavy_imports(args)
            print(
                f"{name:<10} {statistics.median(cpu):>6.2f} {min(cpu):>5.2f} {statistics.median(wall):>7.2f}  "
                f"{', '.join(heavy) or 'none'}"
            )


if __name__ == "__main__":
    main()
