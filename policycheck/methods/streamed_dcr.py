"""Exact DCR against a synthetic set too large for one process: the set is streamed shard by shard.

Paper 002 (sec. 3 and 5) defines ``DCR = min(D_i1, ..., D_iN)``. Both
directions of the DCR split over shards of the synthetic set without
changing a single result:

- **synthetic -> real** (each synthetic record is a query): queries are
  independent, so each shard of the synthetic set is searched on its own
  against the whole (small) real set;
- **real -> synthetic** (the synthetic set is the reference): the minimum
  over all records is the minimum over the shards' minima. Each shard gives
  every real record its closest record in that shard and the canonical sum
  ``p * D`` (:func:`policycheck.methods.gower.gower_sums`); shards are merged
  in row order keeping a strictly smaller sum, so ties go to the smallest
  row index, as in the search over the whole set.

A shard is a run of Parquet row groups. The worker that searches it reads
those row groups itself, one at a time and only the columns the encoding
uses, and encodes them: the parent never holds the synthetic set, and a
worker holds one shard (about ``SHARD_ROWS`` encoded rows) at a time. The
real sets' encoded rows are shared with the workers once (see
:mod:`policycheck.execution.executor`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from policycheck.execution.executor import Executor, SerialExecutor
from policycheck.methods.gower import GowerEncoding, gower_sums
from policycheck.methods.nearest_neighbours import Neighbours, SearchJob, closest_records

if TYPE_CHECKING:
    import pandas as pd

#: Synthetic rows per shard at most (a shard is whole row groups; one row group may exceed it).
#: 500,000 encoded rows of 12 columns are 48 MB; searching them as a reference holds about five
#: such arrays at once (the rows, the prefix tree's sorted rows and its column-permuted source,
#: the brute force's transposed copy, the run ends), so a worker stays near 500 MB.
SHARD_ROWS = 500_000


#: Shards handed to each worker per map call: the parent holds the answers, and the results of
#: only this many shards per worker at once (at 10^7 rows all of them would double its memory).
SHARDS_PER_WORKER = 4


@dataclass(frozen=True)
class ParquetShard:
    """Consecutive row groups of a Parquet file: ``rows`` rows starting at global row ``offset``."""

    path: str
    row_groups: tuple[int, ...]
    offset: int
    rows: int


def parquet_shards(path: Path | str, shard_rows: int = SHARD_ROWS) -> list[ParquetShard]:
    """Cut a Parquet file into shards of whole row groups, about ``shard_rows`` rows each (metadata only)."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    shards: list[ParquetShard] = []
    groups: list[int] = []
    start, rows = 0, 0
    for g in range(meta.num_row_groups):
        n = meta.row_group(g).num_rows
        if groups and rows + n > shard_rows:
            shards.append(ParquetShard(str(path), tuple(groups), start, rows))
            groups, start, rows = [], start + rows, 0
        groups.append(g)
        rows += n
    if groups:
        shards.append(ParquetShard(str(path), tuple(groups), start, rows))
    return shards


def read_shard(
    shard: ParquetShard, encoding: GowerEncoding, coerce: Callable[[pd.DataFrame], pd.DataFrame] | None = None
) -> np.ndarray:
    """Encoded rows of one shard, read one row group at a time and only the encoding's columns.

    ``coerce`` turns a row group's columns into the values the release loader
    gives them (:func:`policycheck.release.load.coerce_like_loader`: dates as
    days, numbers as floats, categories as labels); without it categories are
    relabelled and every other column is taken as stored.
    """
    out = np.empty((shard.rows, encoding.p), dtype=np.float64)
    at = 0
    for batch in _batches(shard, encoding.features):
        if coerce is not None:
            frame = coerce(batch.to_pandas())
        else:
            frame = _as_release_values(batch.to_pandas(strings_to_categorical=True), encoding)
        out[at : at + len(frame)] = encoding.encode(frame)
        at += len(frame)
        del frame, batch
    return out


def _batches(shard: ParquetShard, columns: Sequence[str]) -> Iterator[Any]:
    """The shard's rows as Arrow record batches of at most :data:`policycheck.release.stream.BATCH_ROWS` rows, in order.

    A batch, not a whole row group, is converted at a time: a row group may
    hold a million rows, and its text columns as Python objects would cost
    a worker more than the shard's encoded rows.
    """
    import pyarrow.parquet as pq

    from policycheck.release import stream

    source = pq.ParquetFile(shard.path)
    yield from source.iter_batches(
        batch_size=stream.BATCH_ROWS, row_groups=list(shard.row_groups), columns=list(columns), use_threads=False
    )


def _as_release_values(frame: pd.DataFrame, encoding: GowerEncoding) -> pd.DataFrame:
    """Categorical values as the release loader labels them (3.0 and 3 one category, missing None)."""
    import pandas as pd

    from policycheck.release.convert import to_labels

    for name, kind in encoding.types.items():
        if kind == "categorical":
            frame[name] = pd.Series(to_labels(frame[name]), dtype=object)
    return frame


def fit_on_stream(encoding: GowerEncoding, shards: Sequence[ParquetShard]) -> GowerEncoding:
    """``encoding`` (fitted on the real sets) widened to the streamed set's numeric ranges and levels.

    The ranges ``R_k`` and the categorical levels must cover every set, as
    in :func:`policycheck.methods.gower.fit_gower`; the summation order stays
    the one fitted on the real sets. One pass, one batch at a time.
    """
    import pandas as pd

    ranges = dict(encoding.numeric_range)
    levels = {k: list(v) for k, v in encoding.levels.items()}
    for shard in shards:
        for batch in _batches(shard, encoding.features):
            frame = _as_release_values(batch.to_pandas(strings_to_categorical=True), encoding)
            for name, kind in encoding.types.items():
                if kind == "numeric":
                    x = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
                    if np.isnan(x).all():
                        continue
                    lo, hi = ranges[name]
                    ranges[name] = (min(lo, float(np.nanmin(x))), max(hi, float(np.nanmax(x))))
                elif kind == "categorical":
                    known = set(levels[name])
                    levels[name] += [v for v in pd.unique(frame[name].dropna()) if v not in known]
    return dataclasses.replace(encoding, numeric_range=ranges, levels=levels)


def streamed_closest_records(
    shards: Sequence[ParquetShard],
    encoding: GowerEncoding,
    real: Sequence[np.ndarray],
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    coerce: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    targets: Sequence[np.ndarray] | None = None,
) -> tuple[list[Neighbours], list[Neighbours]]:
    """Both DCR directions between encoded real sets and a streamed synthetic set.

    Returns ``(synthetic_to, to_synthetic)``: for each set of ``real``, the
    closest real record of every synthetic record, and for each set of
    ``targets`` (``real`` by default) the closest synthetic record (global row
    index) of every real record. Equal, number for number, to
    :func:`policycheck.methods.nearest_neighbours.closest_records` on the
    whole synthetic set in memory. ``coerce``: see :func:`read_shard`.
    """
    executor = executor or SerialExecutor()
    real = [np.ascontiguousarray(x) for x in real]
    targets = real if targets is None else [np.ascontiguousarray(x) for x in targets]
    kinds = encoding.kinds
    total = sum(shard.rows for shard in shards)
    to_dist = [np.empty(total) for _ in real]
    to_index = [np.empty(total, dtype=np.int64) for _ in real]
    best = [np.full(len(x), np.inf) for x in targets]
    from_index = [np.full(len(x), -1, dtype=np.int64) for x in targets]
    methods: list[set[str]] = [set() for _ in range(len(real) + len(targets))]
    # A few shards per worker at a time: the parent keeps the answers, not every shard's results at once.
    batch = SHARDS_PER_WORKER * max(1, executor.workers)
    done = 0
    for first in range(0, len(shards), batch):
        part = shards[first : first + batch]
        # Flat tuples: the executor shares the arrays repeated across items once (policycheck.execution.executor).
        found = executor.map(
            search_shard, [(shard, encoding, kinds, coerce, len(real), *real, *targets) for shard in part]
        )
        for shard, (to_real, from_real) in zip(part, found, strict=True):
            rows = slice(shard.offset, shard.offset + shard.rows)
            for r, f in enumerate(to_real):
                to_dist[r][rows] = f.distance
                to_index[r][rows] = f.index
                methods[r].add(f.method)
            for r, (sums, local, method) in enumerate(from_real):
                better = sums < best[r]  # shards in row order: a tie keeps the earlier, smaller index
                best[r][better] = sums[better]
                from_index[r][better] = local[better] + shard.offset
                methods[len(real) + r].add(method)
        done += len(part)
        if progress:
            progress(done, len(shards))
        del found
    synthetic_to = [Neighbours(to_dist[r], to_index[r], "+".join(sorted(methods[r]))) for r in range(len(real))]
    to_synthetic = [
        Neighbours(best[r] / x.shape[1], from_index[r], "+".join(sorted(methods[len(real) + r])))
        for r, x in enumerate(targets)
    ]
    return synthetic_to, to_synthetic


def search_shard(item: tuple[Any, ...]) -> tuple[list[Neighbours], list[tuple[np.ndarray, np.ndarray, str]]]:
    """Executor task: read and encode one shard, then search it both ways against every real set.

    Returns the shard's records' closest records in each real set, and for
    every target set its records' closest record in this shard as
    ``(p * D, shard row, method)``.
    """
    shard, encoding, kinds, coerce, n_real, *sets = item
    real, targets = sets[:n_real], sets[n_real:]
    x = read_shard(shard, encoding, coerce)
    jobs = [SearchJob(x, r) for r in real] + [SearchJob(r, x) for r in targets]
    found = closest_records(jobs, kinds)
    to_real = found[: len(real)]
    from_real: list[Any] = []
    for r, f in zip(targets, found[len(real) :], strict=True):
        from_real.append((gower_sums(r, x[f.index], kinds), f.index, f.method))
    return to_real, from_real
