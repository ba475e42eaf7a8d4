"""One entry point for every attribute-inference attack of the family.

``lp`` is the linear reconstruction attack (sec. 4.2); ``dcr``, ``ml`` and
``exact`` the baselines (sec. 4.3 and :mod:`.baselines`). An attack maps the
attacked records' quasi-identifiers and a synthetic set to a score per secret
class and a guess per record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np
    import pandas as pd


#: Attack names as policies write them.
ATTACKS = ("lp", "dcr", "ml", "exact")

ATTACK_WORDS = {
    "lp": "linear reconstruction (LP over k-way conditional queries)",
    "dcr": "distance to closest synthetic record, mode-collapsed",
    "ml": "random forest trained on the synthetic data",
    "exact": "majority secret among synthetic records with the same quasi-identifiers",
}


@dataclass(frozen=True)
class AttackConfig:
    """Knobs of the attacks (the rule's params), shared by every record set."""

    query_orders: tuple[int, ...] = (3,)
    n_queries: int | None = None
    numeric_bins: int = 5
    scaling: str = "conditional"
    time_limit: float = 300.0
    lp_form: str = "auto"
    n_estimators: int = 100


@dataclass(frozen=True)
class AttackOutcome:
    """Scores and guesses of one attack on one set of attacked records."""

    attack: str
    classes: tuple[Any, ...]
    scores: np.ndarray  # (n, K), rows sum to 1
    guess: np.ndarray  # (n,) index into classes
    info: dict[str, Any] = field(default_factory=dict)


def lp_reconstruction(
    targets: pd.DataFrame,
    synthetic: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    numeric: Sequence[str],
    synthetic_secret: np.ndarray,
    n_classes: int,
    config: AttackConfig,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The linear reconstruction attack of sec. 4.2, one-vs-rest over classes (sec. 7.6).

    Builds the k-way queries on the attacked records' quasi-identifiers,
    answers them on the synthetic data, and solves one L1 LP per class (one
    LP only for a binary secret: ``t`` is the score of class 1). With more
    classes each class gets its own ``t_c`` and the guess is the class with
    the largest ``t_c`` (sec. 7.6's one-hot variant; scores are the ``t_c``
    normalised to sum to 1).
    """
    import numpy as np

    from policycheck.methods.distinct_rows import distinct_rows
    from policycheck.methods.reconstruction import baselines
    from policycheck.methods.reconstruction.encoding import describe_bins, fit_encoding
    from policycheck.methods.reconstruction.lp_attack import solve_l1_reconstruction
    from policycheck.methods.reconstruction.queries import answer_queries, build_queries

    encoding = fit_encoding(targets, quasi_identifiers, numeric, config.numeric_bins)
    codes_t, codes_s = encoding.codes(targets), encoding.codes(synthetic)
    # Records with the same codes are in the same cells: the query matrix gets a column per distinct
    # row of codes, which stands for all its records (300,000 Adult records have about 6,000).
    distinct, records = distinct_rows(codes_t)
    copies = np.bincount(records, minlength=len(distinct))
    queries = build_queries(distinct, encoding.radix, config.query_orders, config.n_queries, rng, weights=copies)
    answers, answered = answer_queries(queries, codes_s, synthetic_secret, n_classes, encoding.radix, config.scaling)
    matrix = queries.matrix[answered]
    solved = [1] if n_classes == 2 else range(n_classes)
    t = np.zeros((len(targets), n_classes))
    solves = []
    for k in solved:
        t[:, k], solve = solve_l1_reconstruction(
            matrix, answers[answered, k], config.time_limit, config.lp_form, records=records
        )
        solves.append(solve.as_dict())
    if n_classes == 2:
        t[:, 0] = 1.0 - t[:, 1]
        # NOTE: t_i = 0.5 rounds to 1, as round-half-up in the authors' code.
        guess = (t[:, 1] >= 0.5).astype(np.int64)
        scores = t
    else:
        total = t.sum(axis=1, keepdims=True)
        scores = np.divide(t, total, out=np.full_like(t, 1.0 / n_classes), where=total > 0)
        guess = baselines.best_class(t, baselines.synthetic_prior(synthetic_secret, n_classes))
    info: dict[str, Any] = {
        "queries_enumerated": queries.enumerated,
        "queries_sampled": queries.n_queries,
        "queries_answered": int(answered.sum()),
        "query_orders": list(config.query_orders),
        "scaling": config.scaling,
        "numeric_bins": describe_bins(encoding),
        "solves": solves,
    }
    return scores, guess, info


def run_attack(
    attack: str,
    targets: pd.DataFrame,
    synthetic: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    numeric: Sequence[str],
    secret: str,
    classes: Sequence[Any],
    config: AttackConfig,
    rng: np.random.Generator,
) -> AttackOutcome:
    """Run the named attack against every record of ``targets``.

    Parameters
    ----------
    attack
        One of :data:`ATTACKS`.
    targets
        The attacked records (only their quasi-identifiers are read).
    synthetic
        One synthetic set (quasi-identifiers and ``secret``).
    quasi_identifiers, numeric
        The attacker's columns, and which of them are numeric.
    secret
        The secret column.
    classes
        The secret's domain (known to the attacker, paper Table 1).
    config
        Attack knobs.
    rng
        Every random choice of the attack.
    """
    import numpy as np

    from policycheck.methods.reconstruction import baselines

    classes = tuple(classes)
    k = len(classes)
    secret_codes = baselines.class_codes(synthetic[secret], np.array(classes, dtype=object))
    qis = list(quasi_identifiers)
    num = [c for c in qis if c in set(numeric)]
    info: dict[str, Any] = {}
    if attack == "lp":
        scores, guess, info = lp_reconstruction(targets, synthetic, qis, num, secret_codes, k, config, rng)
    elif attack == "exact":
        scores, guess = baselines.exact_match_majority(targets, synthetic, qis, secret_codes, k)
    elif attack == "dcr":
        scores, guess = baselines.dcr_mode(targets, synthetic, qis, num, secret_codes, k, rng)
    elif attack == "ml":
        scores, guess = baselines.ml_inference(targets, synthetic, qis, num, secret_codes, k, rng, config.n_estimators)
    else:
        raise ValueError(f"unknown attack {attack!r}: expected one of {', '.join(ATTACKS)}")
    return AttackOutcome(attack, classes, scores, np.asarray(guess, dtype=np.int64), info)
