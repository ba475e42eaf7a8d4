"""The linear reconstruction attack: an L1 fit of the secrets, solved by HiGHS.

Paper 001, sec. 4.2: find ``t in [0, 1]^n`` minimising the total absolute
error ``||A t - b~||_1`` of the noisy query answers; the guess is
``round(t_i)``, the score ``t_i``. Written as an LP with slack variables:

primal (one row per query)::

    min 1'u + 1'v   s.t.  A t - u + v = b~,  0 <= t <= 1,  u, v >= 0

dual (one row per record)::

    max b~'y - 1'w  s.t.  A'y - w <= 0,  -1 <= y <= 1,  w >= 0

whose row multipliers are ``t``. The form with fewer rows is solved with
HiGHS's interior-point solver followed by crossover (a vertex solution), the
fastest choice measured on this LP (notes sec. 3: the default dual simplex
was up to 100x slower). The LP often has several optima, so solver, form,
options and threads are pinned and reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

import highspy
import numpy as np
import scipy.sparse as sp

#: HiGHS options every solve uses; reported with each result. Measured against the alternatives on the
#: 4+5-way stress case (10^5 queries, 1,000 records, the dual form: 1,000 rows, 71,499 columns; HiGHS
#: 1.16, quiet machine): IPM with crossover 8.5 s; without crossover 8.4 s, but its interior point rounds
#: to other guesses (accuracy 0.666 against 0.655), so a guess would depend on the algorithm, not the LP's
#: vertex; presolve off 7.6 s (within the machine's spread); dual simplex 54 s; HiPO 52 s (this build lacks
#: its BLAS and orderings); PDLP 246 s; primal simplex past 300 s.
SOLVER_OPTIONS: dict[str, Any] = {
    "solver": "ipm",
    "run_crossover": "on",
    "threads": 1,
    "random_seed": 0,
    "presolve": "on",
    "output_flag": False,
}


class ReconstructionError(RuntimeError):
    """The attack could not produce guesses (solver failure, broken synthesizer)."""


@dataclass(frozen=True)
class SolveInfo:
    """How one LP was solved, for reproducibility.

    ``rows``, ``columns`` and ``nonzeros`` describe the LP as posed (in the
    primal, a column per record and two per query), whatever the solver was
    handed after merging identical records.
    """

    form: str
    rows: int
    columns: int
    nonzeros: int
    objective: float
    seconds: float
    status: str
    #: Rows, columns and non-zeros HiGHS was given (identical records merged); not in the report.
    solved: tuple[int, int, int] | None = None
    #: Interior-point and crossover iterations; not in the report.
    iterations: tuple[int, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "form": self.form,
            "rows": self.rows,
            "columns": self.columns,
            "nonzeros": self.nonzeros,
            "objective": self.objective,
            "seconds": self.seconds,
            "status": self.status,
        }


def solver_description(time_limit: float) -> dict[str, Any]:
    """JSON-ready description of the pinned solver (for result details)."""
    return {
        "library": "highspy",
        "version": version("highspy"),
        "options": dict(SOLVER_OPTIONS),
        "time_limit": float(time_limit),
        "form": "the one with fewer rows: primal (a row per query) or dual (a row per record)",
    }


def choose_form(n_queries: int, n_records: int, form: str = "auto") -> str:
    """The form with fewer rows: ``primal`` (q rows) or ``dual`` (n rows)."""
    if form in ("primal", "dual"):
        return form
    if form != "auto":
        raise ValueError(f"unknown LP form {form!r}: expected 'auto', 'primal' or 'dual'")
    return "dual" if n_queries > n_records else "primal"


def merge_duplicate_queries(matrix: sp.csr_matrix, answers: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """Merge queries with the same records and the same answer into one, weighted.

    ``w |a t - b|`` replaces ``w`` equal terms, so the L1 objective and its
    optima are unchanged. Random 4- and 5-way cells often hold the same single
    record with the same synthetic share (about 30 % of 10^5 queries on Adult).

    Returns
    -------
    matrix, answers, weight
        The distinct queries, in first-seen order, and how often each occurred.
    """
    matrix = sp.csr_matrix(matrix)
    matrix.sort_indices()
    first: dict[bytes, int] = {}
    group = np.empty(matrix.shape[0], dtype=np.int64)
    for j in range(matrix.shape[0]):
        cols = matrix.indices[matrix.indptr[j] : matrix.indptr[j + 1]]
        key = cols.tobytes() + answers[j : j + 1].tobytes()
        group[j] = first.setdefault(key, len(first))
    # Group ids count up in first-seen order: their first rows, in that order.
    _, rows, weight = np.unique(group, return_index=True, return_counts=True)
    weight = weight.astype(float)
    return matrix[rows], answers[rows], weight


def _quiet_solver() -> Any:
    """A HiGHS solver that writes nothing to stdout.

    highspy 1.16's ``Highs()`` prints its banner while it enables callbacks,
    before any option can be set, so it would land in the middle of a
    report written to stdout. The core solver it wraps takes the same calls
    (we use no callbacks) and prints nothing until ``output_flag`` is off.
    """
    core = getattr(getattr(highspy, "_core", None), "_Highs", None)
    return core() if core is not None else highspy.Highs()  # type: ignore[no-untyped-call]


def solve_l1_reconstruction(
    matrix: sp.spmatrix,
    answers: np.ndarray,
    time_limit: float = 300.0,
    form: str = "auto",
    records: np.ndarray | None = None,
) -> tuple[np.ndarray, SolveInfo]:
    """Solve ``min_{t in [0,1]^n} ||A t - b~||_1`` (paper 001, sec. 4.2).

    Identical queries (same records, same answer) are merged first into one
    query whose error counts as many times (:func:`merge_duplicate_queries`):
    the same optimum, a smaller LP. In the primal form, records with equal
    columns (the same quasi-identifiers) share one variable, their sum
    (:mod:`.identical_records`): the LP HiGHS's presolve would reduce the
    unmerged one to, split back as its postsolve would.

    Parameters
    ----------
    matrix
        ``A``, ``(q, n)`` sparse 0/1 query matrix.
    answers
        ``b~``, ``(q,)`` noisy answers.
    time_limit
        Seconds HiGHS may spend; a solve that does not reach optimality raises.
    form
        ``auto`` (fewer rows), ``primal`` or ``dual``.
    records
        ``(n,)`` the column of ``matrix`` that stands for each record, when
        its columns are the distinct rows of the records' codes (``A`` is
        then ``matrix[:, records]``); by default a column per record.

    Returns
    -------
    t
        ``(n,)`` reconstructed secrets in [0, 1].
    info
        Form, sizes of the LP as posed (a column per record), objective,
        time and status.

    Raises
    ------
    ReconstructionError
        When HiGHS does not report an optimal solution.
    """
    from policycheck.methods.reconstruction.identical_records import record_groups, split_group_sums

    # NOTE: queries equal over the columns are equal over the records the columns stand for.
    a, b, weight = merge_duplicate_queries(sp.csr_matrix(matrix, dtype=float), np.asarray(answers, dtype=float))
    q = a.shape[0]
    n = a.shape[1] if records is None else len(records)
    chosen = choose_form(q, n, form)
    if q == 0:
        return np.full(n, 0.5), SolveInfo(chosen, 0, n, 0, 0.0, 0.0, "no queries")
    lp = highspy.HighsLp()
    if chosen == "primal":
        # One column per group of identical records, at its first record's place, bounded by the group's size.
        columns, first, group = record_groups(a, records)
        size = np.bincount(group, minlength=first.size).astype(float)
        a = a.tocsc()
        eye = sp.identity(q, format="csc")
        full = sp.hstack([a[:, columns], -eye, eye], format="csc")
        cost = np.concatenate([np.zeros(first.size), weight, weight])
        lower = np.zeros(first.size + 2 * q)
        upper = np.concatenate([size, np.full(2 * q, highspy.kHighsInf)])
        row_lower, row_upper = b, b
        per_record = np.diff(a.indptr) if records is None else np.diff(a.indptr)[records]
        posed = (q, n + 2 * q, int(per_record.sum()) + 2 * q)
    else:
        if records is not None:
            a = a.tocsc()[:, records]
        full = sp.hstack([a.T.tocsc(), -sp.identity(n, format="csc")], format="csc")
        cost = np.concatenate([b, -np.ones(n)])
        # A query of weight w bounds its multiplier by w instead of 1.
        lower = np.concatenate([-weight, np.zeros(n)])
        upper = np.concatenate([weight, np.full(n, highspy.kHighsInf)])
        row_lower, row_upper = np.full(n, -highspy.kHighsInf), np.zeros(n)
        lp.sense_ = highspy.ObjSense.kMaximize
        posed = (full.shape[0], full.shape[1], full.nnz)
    lp.num_col_, lp.num_row_ = full.shape[1], full.shape[0]
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = cost, lower, upper
    lp.row_lower_, lp.row_upper_ = row_lower, row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = full.indptr.astype(np.int32)
    lp.a_matrix_.index_ = full.indices.astype(np.int32)
    lp.a_matrix_.value_ = full.data.astype(np.float64)
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = full.shape[1], full.shape[0]

    h = _quiet_solver()
    for key, value in SOLVER_OPTIONS.items():
        h.setOptionValue(key, value)
    h.setOptionValue("time_limit", float(time_limit))
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    info = SolveInfo(
        form=chosen,
        rows=int(posed[0]),
        columns=int(posed[1]),
        nonzeros=int(posed[2]),
        objective=float(h.getInfo().objective_function_value),
        seconds=float(h.getRunTime()),
        status=h.modelStatusToString(status),
        solved=(int(full.shape[0]), int(full.shape[1]), int(full.nnz)),
        iterations=(int(h.getInfo().ipm_iteration_count), int(h.getInfo().crossover_iteration_count)),
    )
    if status != highspy.HighsModelStatus.kOptimal:
        raise ReconstructionError(
            f"HiGHS stopped with status '{info.status}' on the reconstruction LP "
            f"({info.rows} rows, {info.columns} columns) within time_limit={time_limit} s"
        )
    solution = h.getSolution()
    if chosen == "primal":
        t = split_group_sums(np.asarray(solution.col_value[: first.size], dtype=float), group)
    else:
        # NOTE: the records' secrets are the multipliers of the dual's rows;
        # HiGHS signs them by its own convention, the magnitude is t.
        t = np.abs(np.asarray(solution.row_dual, dtype=float))
    return np.clip(t, 0.0, 1.0), info
