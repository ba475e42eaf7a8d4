"""A check killed with SIGKILL leaves a whole report set and no workers (issue 16, item 5).

``check`` runs in a subprocess and is killed at seeded random moments (half
of them late, where the reports are written). The output folder must then
hold either the previous complete set or the new one, every file carrying
one run id; and no worker process of the killed check may survive it.
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

DEMO = Path(__file__).resolve().parents[2] / "policycheck" / "demo_data"
POLICY = """\
metadata: {id: kill, title: Kill test, version: "1", owner: tests}
attacker: {model: no-box, quasi_identifiers: [age, sex], secrets: [income]}
rules:
  - id: dcr
    metric: dcr_share
    threshold: {fail_above: 0.99}
"""
FILES = ("report.json", "report.html", "report.md", "report.junit.xml", "report.sarif")


@pytest.fixture
def project(tmp_path):
    pd.read_csv(DEMO / "adult_training.csv").head(1500).to_csv(tmp_path / "train.csv", index=False)
    pd.read_csv(DEMO / "adult_holdout.csv").head(1500).to_csv(tmp_path / "hold.csv", index=False)
    # Real records the holdout does not hold stand in for a synthetic set (a set equal to the holdout is refused).
    pd.read_csv(DEMO / "adult_holdout.csv").tail(1500).to_csv(tmp_path / "syn.csv", index=False)
    (tmp_path / "p.yaml").write_text(POLICY)
    return tmp_path


def _command(project):
    return [
        sys.executable,
        "-m",
        "policycheck",
        "check",
        "p.yaml",
        "--original",
        "train.csv",
        "--synthetic",
        "syn.csv",
        "--holdout",
        "hold.csv",
        "-o",
        "out",
        "-q",
        "--workers",
        "2",
        "--format",
        "json,html,md,junit,sarif",
    ]


def _children(pid):
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _run_id_of_set(folder):
    """The one run id every file of the set carries; fails on a mixed or partial set."""
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(FILES), names
    run_id = json.loads((folder / "report.json").read_text())["provenance"]["run_id"]
    for name in FILES[1:]:
        assert run_id in (folder / name).read_text(), f"{name} is not of run {run_id}"
    return run_id


def _kill_runs(project, kills, seed):
    done = subprocess.run(_command(project), cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    started = time.monotonic()
    full = subprocess.run(_command(project), cwd=project, capture_output=True, text=True)
    duration = time.monotonic() - started
    assert full.returncode == 0
    sets = {_run_id_of_set(project / "out")}
    rng = random.Random(seed)
    survivors = []
    for i in range(kills):
        at = rng.uniform(0.7, 1.05) * duration if i % 2 else rng.uniform(0.1, 1.0) * duration
        before = _run_id_of_set(project / "out")
        proc = subprocess.Popen(_command(project), cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        workers = set()
        deadline = time.monotonic() + at
        while time.monotonic() < deadline and proc.poll() is None:
            workers.update(_children(proc.pid))
            time.sleep(0.02)
        workers.update(_children(proc.pid))
        if proc.poll() is None:  # a run that already finished has a whole new set and nothing to kill
            proc.kill()
        proc.wait()
        time.sleep(3)
        survivors += [w for w in workers if _alive(w)]
        after = _run_id_of_set(project / "out")
        assert after == before or after not in sets  # the old set, or a whole new one
        sets.add(after)
    assert not survivors, f"worker processes outlived the killed check: {survivors}"
    return sets


def test_a_killed_check_leaves_a_whole_set_and_no_worker(project):
    _kill_runs(project, kills=2, seed=16)


#: A game's repetitions go to every worker whatever the data's size (a DCR step this small runs serially).
GAME_POLICY = """\
metadata: {id: kill-game, title: Kill test, version: "1", owner: tests}
attacker: {model: partially-informed, quasi_identifiers: [age, sex, race], secrets: [income]}
rules:
  - id: game
    metric: attribute_inference_advantage
    params: {secret: income, attack: exact, synthesizer: nonprivate, repetitions: 40}
    threshold: {fail_above: 0.99}
"""


def test_a_check_run_with_workers_leaves_none_after_kill(project):
    (project / "p.yaml").write_text(GAME_POLICY)
    proc = subprocess.Popen(_command(project), cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = []
    deadline = time.monotonic() + 120
    while not workers and proc.poll() is None and time.monotonic() < deadline:
        workers = list(_children(proc.pid))
        time.sleep(0.05)
    if not workers:
        pytest.fail("the check finished before starting workers: the data is too small to test this")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(3)
    assert not [w for w in workers if _alive(w)]


#: The membership game names its forests' library ahead of its rounds (``Executor.prepare``): its
#: workers are forked from a zygote, a child of the check, so they are the check's grandchildren.
MEMBERSHIP_POLICY = """\
metadata: {id: kill-membership, title: Kill test, version: "1", owner: tests}
attacker: {model: maximum-knowledge}
rules:
  - id: game
    metric: membership_inference_advantage
    params: {synthesizer: release, repetitions: 400, targets: {vulnerable: 2, rare: 0, random: 1}, sample_size: 300}
    threshold: {fail_above: 0.99}
"""

MEMBERSHIP_RELEASE = """\
release: {id: kill-membership}
original: train.csv
holdout: hold.csv
synthetic:
  - {name: copy, path: syn.csv, synthesizer: {name: nonprivate, builtin: nonprivate}}
"""


def _descendants(pid):
    found, frontier = [], [pid]
    while frontier:
        kids = [k for p in frontier for k in _children(p)]
        found += kids
        frontier = kids
    return found


def test_a_killed_membership_game_leaves_neither_its_zygote_nor_its_workers(project):
    (project / "p.yaml").write_text(MEMBERSHIP_POLICY)
    (project / "release.yaml").write_text(MEMBERSHIP_RELEASE)
    command = [sys.executable, "-m", "policycheck", "check", "p.yaml", "-r", "release.yaml", "-o", "out", "-q"]
    proc = subprocess.Popen(
        [*command, "--workers", "2"], cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    grandchildren, seen = [], set()
    deadline = time.monotonic() + 120
    while len(grandchildren) < 2 and proc.poll() is None and time.monotonic() < deadline:
        below, children = _descendants(proc.pid), set(_children(proc.pid))
        seen.update(below)
        grandchildren = [d for d in below if d not in children]
        time.sleep(0.05)
    if len(grandchildren) < 2:
        pytest.fail("the game ended (or never forked its workers from a zygote) before it could be killed")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(3)
    assert not [p for p in seen if _alive(p)]


@pytest.mark.slow
def test_thirty_kills_leave_whole_sets(project):
    _kill_runs(project, kills=30, seed=1600)


def test_reports_follow_the_umask(project):
    old = os.umask(0o027)
    try:
        done = subprocess.run(_command(project), cwd=project, capture_output=True, text=True)
    finally:
        os.umask(old)
    assert done.returncode == 0, done.stderr
    assert (project / "out").stat().st_mode & 0o777 == 0o750
    assert {(project / "out" / n).stat().st_mode & 0o777 for n in FILES} == {0o640}


def _dead_pid():
    """The id of a process that has ended."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_temporary_files_left_by_a_killed_check_are_removed_by_the_next(project):
    # A folder that also holds other files gets each report file replaced through a temporary file;
    # a kill between writing one and renaming it leaves it behind (issue 23, item 12).
    (project / "out").mkdir()
    (project / "out" / "notes.txt").write_text("not ours")
    dead = _dead_pid()
    stale = [
        project / "out" / f".report.json.policycheck-{dead}-x1y2z3.tmp",
        project / "out" / f".report.html.policycheck-{dead}-abcdef.tmp",
    ]
    old = project / "out" / ".report.md.k2j3h4g5.tmp"  # named as earlier versions named them
    alive = project / "out" / f".report.json.policycheck-{os.getpid()}-aaaaaa.tmp"  # a run still writing
    fresh = project / "out" / f".report.sarif.policycheck-{dead}-bbbbbb.tmp"  # maybe another machine's, writing
    for path in [*stale, old, alive, fresh]:
        path.write_text("half a report")
        if path is not fresh:
            os.utime(path, (time.time() - 3600, time.time() - 3600))
    done = subprocess.run(_command(project), cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not [p for p in [*stale, old] if p.exists()]
    assert alive.exists() and fresh.exists() and (project / "out" / "notes.txt").exists()


SLOW_SYNTH = """\
import os, sys, time
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
open(os.path.join(os.path.dirname(args["--input"]), "synth.pid"), "w").write(str(os.getpid()))
time.sleep(60)
"""
COMMAND_GAME_POLICY = """\
metadata: {id: game, title: Game policy, version: "1", owner: tests}
attacker: {model: maximum-knowledge, quasi_identifiers: [age, sex], secrets: [income]}
rules:
  - id: game
    metric: attribute_inference_advantage
    params: {secret: income, attack: exact, synthesizer: release, repetitions: 2}
    threshold: {fail_above: 1.0}
"""


def test_the_copy_of_the_records_a_killed_checks_synthesizer_read_is_removed_by_the_next_check(project):
    temp = project / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    (project / "slow.py").write_text(SLOW_SYNTH)
    command = f"{sys.executable} slow.py --input {{input}} --output {{output}} --rows {{rows}} --seed {{seed}}"
    (project / "release.yaml").write_text(
        "release: {id: game-release}\noriginal: train.csv\nholdout: hold.csv\nsynthetic:\n  - path: syn.csv\n"
        f"    synthesizer: {{name: slow, command: {json.dumps(command)}}}\n"
    )
    (project / "game.yaml").write_text(COMMAND_GAME_POLICY)
    game = [sys.executable, "-m", "policycheck", "check", "game.yaml", "-r", "release.yaml", "-o", "out", "-q"]
    check = subprocess.Popen([*game, "--run-synthesizer", "--workers", "1"], cwd=project, env=env)
    deadline = time.time() + 60
    while not list(temp.glob("policycheck-synth-*/synth.pid")) and time.time() < deadline:
        time.sleep(0.05)
    (pid_file,) = temp.glob("policycheck-synth-*/synth.pid")
    left = pid_file.parent
    assert (left / "input.csv").exists()  # the training records, copied for the synthesizer
    check.kill()
    check.wait()
    os.kill(int(pid_file.read_text()), signal.SIGKILL)  # the synthesizer outlives a SIGKILLed check
    assert left.exists()
    done = subprocess.run(_command(project), cwd=project, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not left.exists()
