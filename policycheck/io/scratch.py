"""Private scratch folders for data handed to another program, never left behind for long.

A manifest's synthesizer ``command:`` reads the original records from a CSV
file and writes its synthetic set to another. Both sit in a folder of the
system's temporary folder that only this user can read, removed when the
program is done. A check killed meanwhile (``kill -9``) cannot remove it, and
it holds a copy of the training records: each folder is named with the
process id of the check that made it (``policycheck-<kind>-<pid>-*``), and
the next check removes those whose process is gone.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from policycheck.io.outputs import process_alive

#: Kinds of scratch folder a check makes (each the ``<kind>`` of its folders' names).
KINDS = ("synth",)
#: A folder named as before the process id was in the name is removed once this old (seconds).
UNNAMED_STALE_SECONDS = 24 * 3600.0


@contextlib.contextmanager
def scratch_folder(kind: str) -> Iterator[Path]:
    """A fresh private folder (mode 0700) for ``kind``'s files, removed with everything in it afterwards.

    Folders a killed check left are removed once per check (:func:`remove_stale_scratch`, at its start),
    not here: a game calls this once per round.
    """
    with tempfile.TemporaryDirectory(prefix=f"policycheck-{kind}-{os.getpid()}-") as tmp:
        yield Path(tmp)


def remove_stale_scratch(*kinds: str) -> None:
    """Remove this user's scratch folders of ``kinds`` (all by default) whose check has ended without removing them."""
    root = Path(tempfile.gettempdir())
    now = time.time()
    for kind in kinds or KINDS:
        prefix = f"policycheck-{kind}-"
        for entry in root.glob(f"{prefix}*"):
            try:
                info = entry.lstat()
            except OSError:
                continue
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                continue  # another user's, or not a folder this module made
            pid, _, rest = entry.name[len(prefix) :].partition("-")
            if pid.isdigit() and rest:
                if int(pid) == os.getpid() or process_alive(int(pid)):
                    continue
            elif now - info.st_mtime < UNNAMED_STALE_SECONDS:  # an earlier version's: its check may still run
                continue
            shutil.rmtree(entry, ignore_errors=True)
