"""How fast each core runs right now: a probe taken beside every timed run of a one- against two-worker comparison.

On the shared development VM each virtual core runs, for stretches of one to
thirty seconds, at about half its speed, each on its own, with no load average
or steal time showing it (a 60-second probe of both cores at once: each slow
37-42% of the time, both fast 40%). A two-worker run is held back by the slower
core while a one-worker run may sit on the faster one, so such stretches cut a
measured speed-up by up to a half whatever the code does. :func:`core_speeds`
times a fixed pure-Python loop pinned to every core at once; a run whose probes
before and after find every core near the fastest speed the bench has seen is
*clean* (:func:`clean`), and the speed-up over clean runs is printed beside the
one over all runs. Scaling each wall by its probes' speeds instead was tried and
dropped: the speed changes within a run, so the estimate moved as much as the
raw ratio did.
"""

from __future__ import annotations

import os
import subprocess
import sys

#: Steps of the probe's loop: about 0.07 s on a core of the development VM at full speed.
STEPS = 1_000_000

#: A core at this share of the fastest speed seen (or more) counts as running at full speed.
FULL_SPEED = 0.85

_LOOP = f"""
import time
t = time.perf_counter()
s = 0
for i in range({STEPS}):
    s += i
print(time.perf_counter() - t)
"""


def cores() -> list[int]:
    """The cores this process may run on."""
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))


def core_speeds(repeats: int = 3) -> list[float]:
    """Each core's speed now, in million loop steps per second: the fastest of ``repeats`` probes, all cores at once.

    Each core runs the loop in its own process pinned to it, every core at the same time, as a
    two-worker run loads them; a core slowed by the host shows a lower speed.
    """
    best = [0.0] * len(cores())
    for _ in range(repeats):
        probes = [
            subprocess.Popen(
                [sys.executable, "-c", _LOOP],
                stdout=subprocess.PIPE,
                text=True,
                preexec_fn=(lambda c=core: os.sched_setaffinity(0, {c})) if hasattr(os, "sched_setaffinity") else None,
            )
            for core in cores()
        ]
        for i, probe in enumerate(probes):
            seconds = float(probe.communicate()[0])
            best[i] = max(best[i], STEPS / seconds / 1e6)
    return [round(s, 2) for s in best]


def fastest_speed(runs: list[dict]) -> float:
    """The fastest core speed any probe of ``runs`` (each with ``cores``: its probes) found."""
    return max(speed for run in runs for probe in run["cores"] for speed in probe)


def clean(probes: list[list[float]], fastest: float) -> bool:
    """Whether every core of every probe (``core_speeds`` before and after a run) ran at full speed."""
    return all(speed >= FULL_SPEED * fastest for probe in probes for speed in probe)


def slowest_share(probes: list[list[float]], fastest: float) -> float:
    """The slowest core's speed among ``probes`` as a share of ``fastest``."""
    return round(min(speed for probe in probes for speed in probe) / fastest, 2)


def clean_wall(runs: list[dict], fastest: float) -> float | None:
    """The median wall of the clean runs of ``runs`` (each with ``wall`` and ``cores``), None when none is."""
    import statistics

    fair = [r["wall"] for r in runs if clean(r["cores"], fastest)]
    return float(statistics.median(fair)) if fair else None
