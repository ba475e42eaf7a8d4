"""The shared intermediate ``gower_dcr``: exact Gower distances to closest record of one synthetic set (paper 002).

Every rule that reads DCRs (the membership family's release-level rules and
``dp_epsilon_excess_membership``) builds its Needs with :func:`dcr_needs`, so
equal requests are equal Needs and share one computation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from policycheck.core.errors import EvaluationError
from policycheck.core.threads import Ahead
from policycheck.methods import cost_model
from policycheck.metrics.base import EvaluationContext, Need
from policycheck.metrics.registry import intermediate
from policycheck.release.model import Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    from policycheck.methods.dcr_relabelling import NearestSets


@dataclass(frozen=True)
class GowerDcr:
    """Exact Gower distances to closest record for one synthetic set.

    Attributes
    ----------
    syn_to_training, syn_to_holdout : numpy.ndarray
        Per synthetic record: its DCR to the training (original) set and to
        the holdout set, both of the same size (see ``share_subsample``).
    training_to_syn, holdout_to_syn : numpy.ndarray
        Per real record (all of them): its DCR to the synthetic set.
    syn_to_training_index, syn_to_holdout_index, training_to_syn_index, holdout_to_syn_index : numpy.ndarray
        Row of the closest record in the other set's full frame (smallest row
        among ties).
    convention : str
        The Gower convention, in words.
    gower : dict
        The convention with its numbers (ranges, orders, summation order).
    share_subsample : dict or None
        When training and holdout sizes differ: the larger set's role, its
        size and the sorted rows of the seeded equal-size sample that the
        synthetic -> real DCRs were computed against.
    synthetic_name : str
        Name of the synthetic set.
    nearest_sets : callable
        Each synthetic record's nearest set among the real records the share compares
        (:func:`policycheck.methods.dcr_relabelling.nearest_sets`), built on the first call
        since only the DCR share reads it (a streamed set is read again for it, shard by shard);
        ``None`` past its size bound.
    pool_training : int
        Training records among those real records (they come first in the pool).
    people : tuple of numpy.ndarray or None
        Each training and holdout record's person (one numbering for both) where an id
        column names people (:func:`policycheck.release.people.person_column`) and the two
        sets hold different people, else None.
    pool_people : numpy.ndarray or None
        The person of each real record the share compares (training first), where ``people`` is.
    """

    syn_to_training: np.ndarray
    syn_to_holdout: np.ndarray
    training_to_syn: np.ndarray
    holdout_to_syn: np.ndarray
    syn_to_training_index: np.ndarray
    syn_to_holdout_index: np.ndarray
    training_to_syn_index: np.ndarray
    holdout_to_syn_index: np.ndarray
    convention: str
    gower: dict[str, Any]
    share_subsample: dict[str, Any] | None
    synthetic_name: str
    nearest_sets: Callable[[], NearestSets | None]
    pool_training: int
    people: tuple[np.ndarray, np.ndarray] | None = None
    pool_people: np.ndarray | None = None

    def clusters(self, by_person: bool = True) -> np.ndarray:
        """Each synthetic record's cluster: its nearest real record, or that record's person where the data
        name people and ``by_person`` (:func:`policycheck.methods.dcr_share.nearest_real_record`)."""
        from policycheck.methods.dcr_share import nearest_real_record

        return nearest_real_record(
            self.syn_to_training,
            self.syn_to_holdout,
            self.syn_to_training_index,
            self.syn_to_holdout_index,
            self.people if by_person else None,
        )

    def equal_size_note(self) -> str:
        """One sentence for the report on the sizes the share compares."""
        n = len(self.training_to_syn)
        if self.share_subsample is None:
            return (
                f"Training and holdout both have {n} records; a share is only meaningful with "
                "equal-size training and holdout sets."
            )
        s = self.share_subsample
        return (
            f"The {s['role']} set has {s['size']} records and the other {s['sample_size']}; the synthetic "
            f"records were compared with a seeded sample of {s['sample_size']} {s['role']} records, because "
            "a share is only meaningful with equal-size training and holdout sets."
        )


def dcr_needs(params: Any, release: Release) -> list[Need]:
    """One ``gower_dcr`` need per synthetic set; ``columns`` only when a rule restricts them.

    Every rule reading the DCRs (other families' too) builds its needs here,
    so equal requests are equal Needs and share one computation.
    """
    extra: dict[str, Any] = {}
    if params.columns:
        wanted = set(params.columns)
        extra["columns"] = tuple(c for c in release.columns if c in wanted)
    return [Need.of("gower_dcr", synthetic=i, **extra) for i in range(len(release.synthetic))]


def dcrs_in_set_order(needs: Mapping[Need, Any]) -> list[GowerDcr]:
    """The shared DCRs of :func:`dcr_needs`, in synthetic-set order."""
    return [needs[n] for n in sorted(needs, key=lambda n: n.kwargs["synthetic"])]


@intermediate(
    name="gower_dcr",
    description=(
        "Exact Gower distance to closest record of one synthetic set: synthetic to training, synthetic to "
        "holdout, training to synthetic and holdout to synthetic."
    ),
    inputs={"original", "holdout", "synthetic"},
    estimate=cost_model.gower_dcr,
)
def gower_dcr(ctx: EvaluationContext, synthetic: int, columns: tuple[str, ...] | None = None) -> GowerDcr:
    """Compute the four DCR directions of synthetic set ``synthetic`` (paper 002, sec. 3-5).

    Parameters
    ----------
    ctx : EvaluationContext
        The release, executor, seed and progress callback.
    synthetic : int
        Index of the synthetic set.
    columns : tuple of str, optional
        Features to use; all columns of the release by default.

    Returns
    -------
    GowerDcr
    """
    import numpy as np

    from policycheck.methods.dcr_share import equal_size_subsample
    from policycheck.methods.gower import fit_and_encode, fit_gower
    from policycheck.release.people import split_people
    from policycheck.release.stream import streams

    release = ctx.release
    if release.holdout is None:
        raise EvaluationError(
            "The membership metrics need a holdout set of real records that were not used for training."
        )
    features = list(columns) if columns else release.columns
    # A streamed set gives its columns one at a time: the encoding is fitted on the same values, never the whole set.
    frames = [release.original.frame, release.holdout.frame, *(d.column_reader() for d in release.synthetic)]
    syn = release.synthetic[synthetic]
    for dataset in (release.original, release.holdout, syn):
        if dataset.n_rows == 0:
            raise EvaluationError(
                f"The {dataset.role} set {dataset.name!r} has no records, so no distance can be computed."
            )
    threads = ctx.executor.threads
    # With a second worker, the compiled search loads (numba's cache) while the encoding is fitted
    # (one worker: when the search asks for it).
    loading = Ahead(_load_search, threads)
    # One encoding (ranges over every set) for all sets and directions, so all DCRs share one scale,
    # encoded where the executor's workers read them: the searches' tasks share these arrays.
    streamed = ctx.executor.sees_local_files and syn.path is not None and streams(syn)
    if streamed:  # its columns are read one at a time, from its file
        enc = fit_gower(frames, release.column_types, release.orders, features, threads)
        x_train, x_hold = (
            enc.encode(f, ctx.executor.empty, threads) for f in (release.original.frame, release.holdout.frame)
        )
    else:
        enc, (x_train, x_hold, x_syn) = fit_and_encode(
            frames,
            release.column_types,
            release.orders,
            features,
            [release.original.frame, release.holdout.frame, syn.frame],
            ctx.executor.empty,
            threads,
            [d.numbered for d in (release.original, release.holdout, *release.synthetic)],
        )
    # The subsample does not depend on the synthetic set: every set faces the same real records.
    sub = equal_size_subsample(len(x_train), len(x_hold), ctx.rng("gower_dcr", "equal-size subsample"))
    rows_train, rows_hold = np.arange(len(x_train)), np.arange(len(x_hold))
    # The real records the synthetic ones are searched against: the whole sets (the very arrays of the
    # other direction, so the executor shares each once) unless one set is subsampled to the other's size.
    against_train, against_hold = x_train, x_hold
    if sub is not None:
        role, rows = sub
        if role == "original":
            rows_train, against_train = rows, x_train[rows]
        else:
            rows_hold, against_hold = rows, x_hold[rows]
    label = f"gower_dcr({syn.name})"

    def progress(done: int, total: int) -> None:
        ctx.progress(label, done, total)

    from policycheck.methods import streamed_dcr
    from policycheck.methods.nearest_neighbours import SearchJob, closest_records

    path = syn.path  # a streamed set is read from its file
    if streamed:
        assert path is not None
        # A large Parquet set: each worker reads, encodes and searches its own row groups (same numbers).
        # Workers of a remote Dask cluster need not see this machine's files, so they get the set in memory.
        from policycheck.release.load import coerce_like_loader

        coerce = partial(
            coerce_like_loader,
            path,
            {c: release.column_types[c] for c in enc.features},
            release.roles,
            release.orders,
            release.formats,
        )
        loading.result()  # raises what loading raised
        shards = streamed_dcr.parquet_shards(path, streamed_dcr.SHARD_ROWS)
        (to_train, to_hold), (train_to, hold_to) = streamed_dcr.streamed_closest_records(
            shards,
            enc,
            [against_train, against_hold],
            ctx.executor,
            progress,
            coerce=coerce,
            targets=[x_train, x_hold],
        )
    else:
        jobs = [
            SearchJob(x_syn, against_train),
            SearchJob(x_syn, against_hold),
            SearchJob(x_train, x_syn),
            SearchJob(x_hold, x_syn),
        ]
        loading.result()  # raises what loading raised
        to_train, to_hold, train_to, hold_to = closest_records(jobs, enc.kinds, ctx.executor, progress)
    # A streamed set is read again, shard by shard, only if the DCR share asks for its nearest sets.
    synthetic_rows: Callable[[], Any] = (
        (lambda: (streamed_dcr.read_shard(shard, enc, coerce) for shard in shards)) if streamed else (lambda: x_syn)
    )
    nearest_sets = _nearest_sets_on_call(synthetic_rows, against_train, against_hold)
    assert release.holdout is not None  # checked above
    people = split_people(release.original, release.holdout)
    share_subsample = None
    if sub is not None:
        role, rows = sub
        share_subsample = {
            "role": role,
            "size": int(len(x_train) if role == "original" else len(x_hold)),
            "sample_size": int(rows.size),
            "rows": rows,
        }
    return GowerDcr(
        syn_to_training=to_train.distance,
        syn_to_holdout=to_hold.distance,
        training_to_syn=train_to.distance,
        holdout_to_syn=hold_to.distance,
        syn_to_training_index=rows_train[to_train.index],
        syn_to_holdout_index=rows_hold[to_hold.index],
        training_to_syn_index=train_to.index,
        holdout_to_syn_index=hold_to.index,
        convention=enc.describe()["convention"],
        gower=enc.describe(),
        share_subsample=share_subsample,
        synthetic_name=syn.name,
        nearest_sets=nearest_sets,
        pool_training=len(against_train),
        people=people,
        pool_people=np.concatenate([people[0][rows_train], people[1][rows_hold]]) if people is not None else None,
    )


def _nearest_sets_on_call(
    synthetic: Callable[[], Any], training: np.ndarray, holdout: np.ndarray
) -> Callable[[], NearestSets | None]:
    """The nearest sets of the encoded rows ``synthetic()`` gives in ``training + holdout``, built once, on call."""
    from functools import cache

    @cache
    def build() -> NearestSets | None:
        from policycheck.methods.dcr_relabelling import nearest_sets

        return nearest_sets(synthetic(), training, holdout)

    return build


def _load_search() -> None:
    """Import the compiled nearest-neighbour search and load it (numba's on-disk cache)."""
    from policycheck.methods.nearest_neighbours import compile_search

    compile_search()
