"""pac-synth's draws, recorded so the calibration sweep gives the same numbers on every run.

pac-synth takes no seed: its Rust core draws from the operating system, so two runs of the
same sweep fit different models and sample different rows. A calibration target then holds
or misses by chance (the CI sweep's RAND HIE releases at epsilon 1 missed on 1 of 10 seeds in
two runs out of many: a DCR share in the tail of its spread over re-splits, docs/calibration.md).
The sweep would also break the project's rule that the same inputs and seed give the same
numbers. So each pac-synth sample the sweep draws is kept, as the library wrote it (binned
values, before the seeded decoding), in ``calibration/data/pac-synth-draws/``, under a key of
everything it depends on: the binned training table, epsilon, the number of rows and the seed.

``CALIBRATION_PAC_SYNTH`` says what a call does (it reaches the sweep's worker processes):

- ``replay`` (the default): the recorded draw when there is one, else a fresh one;
- ``record``: a fresh draw, written over the recorded one (``python -m calibration.run
  --record-pac-synth`` sets it);
- ``fresh``: a fresh draw, nothing written.

The draws were recorded once, seeds 0-9 of the full sweep, and kept whatever they gave: none was
drawn again to meet a target. tests/calibration/test_recorded_draws.py checks that every pac-synth
release of the CI sweep replays one.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd

#: Where the draws live, one gzipped CSV per draw.
DRAWS = Path(__file__).parent / "data" / "pac-synth-draws"
#: The environment variable that picks replay, record or fresh.
MODE = "CALIBRATION_PAC_SYNTH"
MODES = ("replay", "record", "fresh")


def draw_key(binned: pd.DataFrame, epsilon: float, n: int, seed: int) -> str:
    """A file name for the draw of ``n`` rows at ``epsilon`` and ``seed`` from the binned table ``binned``."""
    digest = hashlib.sha256()
    digest.update(",".join(map(str, binned.columns)).encode())
    digest.update(pd.util.hash_pandas_object(binned, index=False).to_numpy().tobytes())
    return f"{digest.hexdigest()[:16]}-eps{epsilon:g}-n{n}-seed{seed}.csv.gz"


def mode() -> str:
    value = os.environ.get(MODE, "replay")
    if value not in MODES:
        raise ValueError(f"{MODE}={value!r}: use one of {', '.join(MODES)}")
    return value


def pac_synth_sample(
    binned: pd.DataFrame, epsilon: float, n: int, seed: int, draw: Callable[[], pd.DataFrame]
) -> pd.DataFrame:
    """pac-synth's ``n`` binned rows: replayed, or drawn by ``draw()`` (and recorded in ``record`` mode).

    Every value is read back as a string, as the library returns them ("" for an empty value).
    """
    path = DRAWS / draw_key(binned, epsilon, n, seed)
    how = mode()
    if how == "replay" and path.is_file():
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    rows = draw()
    if how == "record":
        DRAWS.mkdir(parents=True, exist_ok=True)
        # mtime=0 in the gzip header: the same draw writes the same bytes.
        with path.open("wb") as raw:
            rows.to_csv(raw, index=False, compression={"method": "gzip", "mtime": 0})
    return rows
