"""Real, maintained synthesizers behind one call: ``fn(frame, categorical, n, seed, **params)``.

``frame`` holds the columns to model (categorical ones as strings, possibly missing; every
other column numeric, dates as days). Each returns ``n`` synthetic rows with the same
columns; numeric values are clipped to the training range, and the caller rounds integer
columns. Every call takes the seed (pac-synth cannot use it, see :func:`pac_synth`).

- :func:`gaussian_copula`: ``copulas`` (the engine of SDV's GaussianCopulaSynthesizer).
- :func:`privbayes`: ``DataSynthesizer``'s correlated attribute mode, PrivBayes (Zhang et al.,
  SIGMOD 2014) with a degree-2 Bayesian network, epsilon-DP.
- :func:`pac_synth`: ``pac-synth``, the DP aggregate seeded synthesizer (DP 3-way marginals).
- :func:`independent_marginals`: the package's built-in ``indhist``.
- :func:`bayesian_network`: DataSynthesizer's correlated attribute mode without DP (a degree-2
  Bayesian network fitted to the data as it is).
- :func:`cart`: a synthpop-style sequential CART synthesizer (scikit-learn trees).
- :func:`independent_marginals_dp`: the built-in ``indhist_dp`` (paper 001's IndHist, Laplace noise).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import tempfile
import warnings

import numpy as np
import pandas as pd

from calibration import recorded_draws
from policycheck.methods.synthesizers import indhist


def _clip_numeric(out: pd.DataFrame, frame: pd.DataFrame, categorical: tuple[str, ...]) -> pd.DataFrame:
    for col in frame.columns:
        if col not in categorical:
            out[col] = pd.to_numeric(out[col], errors="coerce").clip(frame[col].min(), frame[col].max())
    return out


# ----------------------------------------------------------------- Gaussian copula (copulas)


def _uniform_encode(column: pd.Series, rng: np.random.Generator) -> tuple[np.ndarray, list, np.ndarray]:
    """A category as a uniform draw from its own slice of (0, 1), most frequent first.

    This is RDT's UniformEncoder, what SDV's GaussianCopulaSynthesizer does before handing
    categorical columns to ``copulas``: the copula then sees a continuous column whose
    distribution gives each category its frequency. Missing is a category of its own.
    """
    labels = column.astype(object).where(column.notna(), "\0missing")
    freq = labels.value_counts(sort=True)
    cats = list(freq.index)
    edges = np.concatenate([[0.0], np.cumsum(freq.to_numpy()) / len(labels)])
    code = pd.Series(range(len(cats)), index=cats)[labels].to_numpy()
    lo, hi = edges[code], edges[code + 1]
    return lo + (hi - lo) * rng.uniform(0.0, 1.0, size=len(labels)), cats, edges


def _uniform_decode(values: np.ndarray, cats: list, edges: np.ndarray) -> np.ndarray:
    index = np.clip(np.searchsorted(edges, np.clip(values, 0.0, 1.0), side="right") - 1, 0, len(cats) - 1)
    decoded = np.array(cats, dtype=object)[index]
    decoded[decoded == "\0missing"] = None
    return decoded


def gaussian_copula(frame: pd.DataFrame, categorical: tuple[str, ...], n: int, seed: int) -> pd.DataFrame:
    """A Gaussian copula over truncated-Gaussian marginals (``copulas.GaussianMultivariate``).

    Truncated Gaussian marginals, not SDV's default beta: the beta fit of ``copulas`` calls
    ``fsolve`` and fails to converge on these columns ("The iteration is not making good
    progress"), and it is ten times slower. Numeric missing values are filled with the
    column's mean before fitting (SDV's default), so the copula sees none.
    """
    from copulas.multivariate import GaussianMultivariate
    from copulas.univariate import TruncatedGaussian

    rng = np.random.default_rng(seed)
    encoded, codebooks = {}, {}
    for col in frame.columns:
        if col in categorical:
            encoded[col], *codebooks[col] = _uniform_encode(frame[col], rng)
        else:
            encoded[col] = frame[col].astype(float).fillna(frame[col].mean()).to_numpy()
    model = GaussianMultivariate(distribution=TruncatedGaussian, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(pd.DataFrame(encoded))
        sampled = model.sample(n)
    out = pd.DataFrame(
        {
            c: _uniform_decode(sampled[c].to_numpy(), *codebooks[c]) if c in categorical else sampled[c].to_numpy()
            for c in frame.columns
        }
    )
    return _clip_numeric(out, frame, categorical)


# ----------------------------------------------------------------- PrivBayes (DataSynthesizer)


class _InProcessPool:
    """Stands in for the ``multiprocessing.Pool`` DataSynthesizer opens at every network step.

    Same ``map`` results in the same order, so the network is the library's; a fresh pool of
    processes per step costs more than it saves on two cores.
    """

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, fn, items):
        return list(map(fn, items))


def bayesian_network(
    frame: pd.DataFrame, categorical: tuple[str, ...], n: int, seed: int, degree: int = 2
) -> pd.DataFrame:
    """DataSynthesizer's correlated attribute mode with differential privacy off (its ``epsilon=0``).

    The same degree-2 Bayesian network as :func:`privbayes`, its structure and conditionals
    fitted to the data without noise: the non-DP Bayesian network of the membership-game
    guide, whose outliers stayed exposed while release-level rules passed.
    """
    return privbayes(frame, categorical, n, seed, epsilon=0.0, degree=degree)


def privbayes(
    frame: pd.DataFrame, categorical: tuple[str, ...], n: int, seed: int, epsilon: float, degree: int = 2
) -> pd.DataFrame:
    """DataSynthesizer's PrivBayes at total ``epsilon`` (half for the network, half for the conditionals).

    DataSynthesizer 0.1.13 (its latest release) reads and writes files: the training frame
    and the description go through a temporary folder that is removed afterwards. Two shims,
    neither changing a number: numpy 2 prints integers as ``np.int64(3)``, which breaks the
    library's ``eval`` of its own conditional-distribution keys (``NameError: name 'np' is
    not defined`` in ``DataGenerator.generate_encoded_dataset``), so the legacy 1.25 print
    style is set while it runs; and its per-step process pool runs in process. Numeric
    bounds come from the data, as DataSynthesizer does (it does not spend budget on them).
    """
    import DataSynthesizer.lib.PrivBayes as privbayes_module
    from DataSynthesizer.DataDescriber import DataDescriber
    from DataSynthesizer.DataGenerator import DataGenerator

    with (
        tempfile.TemporaryDirectory(prefix="policycheck-privbayes-") as folder,
        np.printoptions(legacy="1.25"),
        contextlib.redirect_stdout(io.StringIO()),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        pool, privbayes_module.Pool = privbayes_module.Pool, _InProcessPool
        try:
            source, description = os.path.join(folder, "training.csv"), os.path.join(folder, "description.json")
            frame.to_csv(source, index=False)
            describer = DataDescriber(category_threshold=0)
            describer.describe_dataset_in_correlated_attribute_mode(
                source,
                epsilon=epsilon,
                k=degree,
                attribute_to_is_categorical={c: c in categorical for c in frame.columns},
                attribute_to_is_candidate_key=dict.fromkeys(frame.columns, False),
                seed=seed,
            )
            describer.save_dataset_description_to_file(description)
            generator = DataGenerator()
            generator.generate_dataset_in_correlated_attribute_mode(n, description, seed=seed)
            out = generator.synthetic_dataset.reset_index(drop=True)
        finally:
            privbayes_module.Pool = pool
    out = out[list(frame.columns)]
    for col in categorical:
        out[col] = out[col].astype(object).where(out[col].notna(), None)
    return _clip_numeric(out, frame, categorical)


# ----------------------------------------------------------------- pac-synth

PAC_BINS = 20


def pac_synth(frame: pd.DataFrame, categorical: tuple[str, ...], n: int, seed: int, epsilon: float) -> pd.DataFrame:
    """pac-synth's DP aggregate seeded synthesizer at ``epsilon`` (3-way DP marginals).

    pac-synth models categorical data only: each numeric column is cut into 20 equal-width
    bins over its training range and decoded as a uniform draw within the bin (seeded).
    Every column is declared ``sensitive_zeros`` so a value is never taken for "empty".
    Its delta is the library's default, 1 / (ln(n) n) (see :func:`pac_synth_delta`).
    pac-synth has no seed parameter: its Rust core draws from the operating system, so its
    rows differ from run to run even at the same seed (only the decoding uses the seed). The
    sweep replays the draws it recorded (:mod:`calibration.recorded_draws`), so its numbers repeat.
    """
    import pacsynth

    rng = np.random.default_rng(seed)
    binned, edges = {}, {}
    for col in frame.columns:
        if col in categorical:
            binned[col] = frame[col].astype(object).where(frame[col].notna(), "")
        else:
            lo, hi = float(frame[col].min()), float(frame[col].max())
            edges[col] = np.linspace(lo, hi, PAC_BINS + 1)
            index = np.clip(np.searchsorted(edges[col], frame[col], side="right") - 1, 0, PAC_BINS - 1)
            binned[col] = pd.Series([f"bin{i:02d}" for i in index]).where(frame[col].notna().to_numpy(), "")
    table = pd.DataFrame(binned)

    def draw() -> pd.DataFrame:
        dataset = pacsynth.Dataset.from_data_frame(table, sensitive_zeros=list(frame.columns))
        params = pacsynth.DpAggregateSeededParametersBuilder().epsilon(epsilon).reporting_length(3).build()
        raw = _fit_pac_synth(pacsynth, params, dataset).sample(n)
        return pd.DataFrame(raw[1:], columns=raw[0])[list(frame.columns)]

    out = recorded_draws.pac_synth_sample(table, epsilon, n, seed, draw)
    for col in frame.columns:
        values = out[col].replace("", None)
        if col in categorical:
            out[col] = values.astype(object)
        else:
            index = values.str.slice(3).astype(float).to_numpy()
            ok = ~np.isnan(index)
            decoded = np.full(len(values), np.nan)
            left = edges[col][index[ok].astype(int)]
            width = edges[col][1] - edges[col][0]
            decoded[ok] = left + width * rng.uniform(0.0, 1.0, size=ok.sum())
            out[col] = decoded
    return _clip_numeric(out, frame, categorical)


#: How many times a pac-synth fit is drawn before its panic is reported (see :func:`_fit_pac_synth`).
PAC_FIT_ATTEMPTS = 5


def _fit_pac_synth(pacsynth, params, dataset):
    """A fitted pac-synth synthesizer; a fit the library aborts is drawn again, up to 5 times.

    pac-synth panics when the noise it adds to the number of records makes that count
    negative ("adding noise to number of records resulted in a negative number"): 2 of 320
    Adult fits at epsilon 1 on 1,000 training rows did. Its operator would run it again, a
    fresh draw from the operating system's randomness, so the harness does the same. pyo3 raises the panic as
    ``PanicException``, a BaseException from a module the parent process cannot unpickle, so
    the last one is re-raised as a RuntimeError that a worker can send back.
    """
    for _ in range(PAC_FIT_ATTEMPTS):
        synthesizer = pacsynth.DpAggregateSeededSynthesizer(params)
        try:
            synthesizer.fit(dataset)
            return synthesizer
        except BaseException as exc:  # noqa: BLE001 - only the library's panic is drawn again
            if type(exc).__name__ != "PanicException":
                raise
            panic = str(exc)
    raise RuntimeError(f"pac-synth panicked on {PAC_FIT_ATTEMPTS} fits in a row: {panic}")


def pac_synth_delta(n_records: int) -> float:
    """pac-synth's default delta for ``n_records`` protected records: 1 / (ln(n) n)."""
    return 1.0 / (math.log(n_records) * n_records)


# ----------------------------------------------------------------- independent marginals


def independent_marginals(frame: pd.DataFrame, categorical: tuple[str, ...], n: int, seed: int) -> pd.DataFrame:
    """The built-in ``indhist``: every column resampled from its own histogram."""
    return indhist(frame, n, np.random.default_rng(seed))


def independent_marginals_dp(
    frame: pd.DataFrame, categorical: tuple[str, ...], n: int, seed: int, epsilon: float, domain: dict[str, list]
) -> pd.DataFrame:
    """The built-in ``indhist_dp`` at ``epsilon`` over ``domain`` (public: the training and holdout values)."""
    from policycheck.methods.synthesizers import indhist_dp

    return indhist_dp(frame, n, np.random.default_rng(seed), epsilon, domain)


# ----------------------------------------------------------------- CART (synthpop-style)

#: Fewest training records in a leaf of each tree (synthpop's ``minbucket`` is 5).
CART_MIN_LEAF = 5


def _codes(column: pd.Series, categorical: bool) -> np.ndarray:
    """A predictor as numbers: categories as codes (sorted, missing -1), numbers with missing below the minimum."""
    if categorical:
        labels = column.astype(object).where(column.notna(), None)
        levels = sorted({str(v) for v in labels if v is not None})
        index = {v: i for i, v in enumerate(levels)}
        return np.array([-1 if v is None else index[str(v)] for v in labels], dtype=float)
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    floor = np.nanmin(values) - 1 if np.isfinite(values).any() else -1.0
    return np.where(np.isnan(values), floor, values)


def cart(
    frame: pd.DataFrame, categorical: tuple[str, ...], n: int, seed: int, min_samples_leaf: int = CART_MIN_LEAF
) -> pd.DataFrame:
    """Sequential CART synthesis as synthpop's ``syn(method = "cart")`` does it (Nowok et al. 2016).

    The first column is drawn from its training values; each next column gets a decision
    tree on the columns before it (a classifier for a categorical column, a regressor for a
    numeric one, leaves of at least ``min_samples_leaf`` records), and every synthetic row
    takes the value of a training record drawn at random from the leaf its synthesized
    predictors fall in (synthpop samples from the leaf's donors). Categorical predictors
    enter as codes in sorted order, a simplification of synthpop's factor splits; missing
    values are a category of their own, or a number below a numeric column's minimum.
    """
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    rng = np.random.default_rng(seed)
    columns = list(frame.columns)
    training = {c: _codes(frame[c], c in categorical) for c in columns}
    out = {columns[0]: frame[columns[0]].to_numpy(dtype=object)[rng.integers(0, len(frame), size=n)]}
    for k, column in enumerate(columns[1:], start=1):
        before = columns[:k]
        x_train = np.column_stack([training[c] for c in before])
        x_syn = np.column_stack(
            [
                _codes(pd.Series(out[c]), c in categorical)
                if c in categorical
                else _codes(pd.Series(out[c], dtype=float), False)
                for c in before
            ]
        )
        target = training[column]
        tree_type = DecisionTreeClassifier if column in categorical else DecisionTreeRegressor
        tree = tree_type(min_samples_leaf=min_samples_leaf, random_state=int(rng.integers(2**31 - 1)))
        tree.fit(x_train, target)
        train_leaf, syn_leaf = tree.apply(x_train), tree.apply(x_syn)
        order = np.argsort(train_leaf, kind="stable")
        leaves, starts, counts = np.unique(train_leaf[order], return_index=True, return_counts=True)
        where = np.searchsorted(leaves, syn_leaf)
        donor = order[starts[where] + (rng.random(n) * counts[where]).astype(np.int64)]
        out[column] = frame[column].to_numpy(dtype=object)[donor]
    result = pd.DataFrame(out, columns=columns)
    for col in columns:
        if col not in categorical:
            result[col] = pd.to_numeric(result[col], errors="coerce")
        else:
            result[col] = result[col].astype(object).where(result[col].notna(), None)
    return _clip_numeric(result, frame, categorical)
