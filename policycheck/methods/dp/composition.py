"""Total privacy budget of several differentially private releases of one original.

Every synthetic set of a release, and every set of an earlier release listed
in the ledger (:mod:`policycheck.methods.dp.ledger`), is one *declared
mechanism*. Composing them bounds what all of them together reveal about any
one record of the original.

Declared mechanisms (the keys a manifest's ``synthesizer:`` block or a ledger
entry may carry):

============================  ==============================================================
``mechanism``                 keys it needs (``steps`` optional everywhere, default 1)
============================  ==============================================================
``pure``                      ``epsilon``: any epsilon-DP algorithm
``approximate``               ``epsilon``, ``delta``: any (epsilon, delta)-DP algorithm
``laplace``                   ``epsilon``: the Laplace mechanism, scale = sensitivity / epsilon
``gaussian``                  ``rho`` (zCDP) or ``noise_multiplier`` (sigma / sensitivity)
``subsampled_gaussian``       ``noise_multiplier``, ``sampling_probability`` (DP-SGD; ``steps``)
``zcdp``                      ``rho``: any rho-zCDP algorithm
============================  ==============================================================

Without ``mechanism``, ``epsilon`` alone means ``pure`` and ``epsilon`` with a
positive ``delta`` means ``approximate``. ``steps`` is how many times the
mechanism ran on the same original (self-composition). A declared
``epsilon``/``delta`` is also used, as given, by basic and advanced
composition for mechanisms described by their noise.

Accountants (every one is a valid upper bound, so the tightest is reported):

- ``basic``: (sum epsilon_i, sum delta_i) (Dwork and Roth 2014, Thm. 3.16);
- ``advanced``: the heterogeneous advanced composition theorem of Kairouz,
  Oh and Viswanath (2017, Thm. 3.5);
- ``rdp``: Renyi-DP accounting with Google's ``dp_accounting`` library
  (Mironov 2017; pure epsilon-DP enters as (epsilon^2 / 2)-zCDP, Bun and
  Steinke 2016, Prop. 1.4);
- ``pld``: privacy-loss-distribution accounting with ``dp_accounting``
  (Koskela et al. 2020; Doroshenko et al. 2022), tight for pure, approximate,
  Laplace and Gaussian mechanisms.

Mechanisms whose standalone (epsilon_i, delta_i) is not declared (e.g. a
Gaussian given by ``rho``) get it, for basic and advanced composition, from
their own tightest accountant at an equal share of the delta the declared
ones leave; advanced composition keeps one more equal share as its slack.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from policycheck.release.mechanism import Mechanism

if TYPE_CHECKING:  # imported inside the functions that use them, so validate reads a ledger light
    pass

ACCOUNTANTS = ("basic", "advanced", "rdp", "pld")


def basic_composition(pairs: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """(sum of epsilons, sum of deltas): basic composition (Dwork and Roth 2014, Thm. 3.16)."""
    return (float(sum(e for e, _ in pairs)), float(sum(d for _, d in pairs)))


def advanced_composition(pairs: Sequence[tuple[float, float]], delta_slack: float) -> tuple[float, float]:
    """Heterogeneous advanced composition (Kairouz, Oh and Viswanath 2017, Thm. 3.5).

    For mechanisms that are (epsilon_i, delta_i)-DP and any slack
    ``delta_slack`` in (0, 1], their composition is (epsilon, delta)-DP with
    ``delta = 1 - (1 - delta_slack) prod(1 - delta_i)`` and ``epsilon`` the
    smallest of ``sum eps_i``,
    ``sum (e^eps_i - 1) eps_i / (e^eps_i + 1) + sqrt(2 sum eps_i^2 ln(e + sqrt(sum eps_i^2) / delta_slack))``
    and ``sum (e^eps_i - 1) eps_i / (e^eps_i + 1) + sqrt(2 sum eps_i^2 ln(1 / delta_slack))``.
    """
    if not 0 < delta_slack <= 1:
        raise ValueError(f"delta_slack must lie in (0, 1], got {delta_slack}")
    eps = [e for e, _ in pairs]
    total = sum(eps)
    squares = sum(e * e for e in eps)
    drift = sum((math.exp(e) - 1) * e / (math.exp(e) + 1) for e in eps)
    second = drift + math.sqrt(2 * squares * math.log(math.e + math.sqrt(squares) / delta_slack))
    third = drift + math.sqrt(2 * squares * math.log(1 / delta_slack))
    delta = 1 - (1 - delta_slack) * math.prod(1 - d for _, d in pairs)
    return (float(min(total, second, third)), float(delta))


def _declared(value: float | None) -> float:
    """A parameter the mechanism's kind requires (:class:`Mechanism` refuses a declaration without it)."""
    if value is None:
        raise ValueError("the mechanism lacks a parameter its kind requires")
    return value


def rdp_event(mech: Mechanism) -> Any:
    """The ``dp_accounting`` event of ``mech`` for Renyi accounting, or None when RDP cannot express it."""
    import dp_accounting

    kind = mech.mechanism
    if kind == "pure":
        # NOTE: epsilon-DP implies (epsilon^2 / 2)-zCDP (Bun and Steinke 2016, Prop. 1.4).
        event = dp_accounting.ZCDpEvent(rho=_declared(mech.epsilon) ** 2 / 2)
    elif kind == "laplace":
        event = dp_accounting.LaplaceDpEvent(noise_multiplier=1.0 / _declared(mech.epsilon))
    elif kind == "zcdp":
        event = dp_accounting.ZCDpEvent(rho=mech.rho)
    elif kind == "gaussian":
        event = dp_accounting.GaussianDpEvent(noise_multiplier=mech.sigma)
    elif kind == "subsampled_gaussian":
        event = dp_accounting.PoissonSampledDpEvent(
            mech.sampling_probability, dp_accounting.GaussianDpEvent(mech.noise_multiplier)
        )
    else:  # approximate: no Renyi curve follows from (epsilon, delta) alone
        return None
    return dp_accounting.SelfComposedDpEvent(event, mech.steps) if mech.steps > 1 else event


def pld_of(mech: Mechanism, discretization: float = 1e-4) -> Any:
    """The privacy loss distribution of ``mech``, or None when a PLD cannot express it (zCDP)."""
    from dp_accounting.pld import common as pld_common
    from dp_accounting.pld import privacy_loss_distribution as pld

    kind = mech.mechanism
    if kind in ("pure", "approximate"):
        params = pld_common.DifferentialPrivacyParameters(mech.epsilon, mech.delta or 0.0)
        dist = pld.from_privacy_parameters(params, value_discretization_interval=discretization)
    elif kind == "laplace":
        dist = pld.from_laplace_mechanism(1.0 / _declared(mech.epsilon), value_discretization_interval=discretization)
    elif kind == "gaussian":
        dist = pld.from_gaussian_mechanism(mech.sigma, value_discretization_interval=discretization)
    elif kind == "subsampled_gaussian":
        dist = pld.from_gaussian_mechanism(
            mech.noise_multiplier,
            sampling_prob=mech.sampling_probability,
            value_discretization_interval=discretization,
        )
    else:  # zcdp: a Renyi curve does not determine a PLD
        return None
    return dist.self_compose(mech.steps) if mech.steps > 1 else dist


def rdp_epsilon(mechanisms: Sequence[Mechanism], delta: float) -> float | None:
    """Epsilon of the composition at ``delta`` by Renyi accounting, or None if a mechanism has no RDP curve."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    events = [rdp_event(m) for m in mechanisms]
    if any(e is None for e in events):
        return None
    accountant = rdp.RdpAccountant()
    accountant.compose(dp_accounting.ComposedDpEvent(events))
    return float(accountant.get_epsilon(delta))


def pld_epsilon(mechanisms: Sequence[Mechanism], delta: float) -> float | None:
    """Epsilon of the composition at ``delta`` by PLD accounting, or None if a mechanism has no PLD."""
    dists = [pld_of(m) for m in mechanisms]
    if any(d is None for d in dists):
        return None
    total = dists[0]
    for dist in dists[1:]:
        total = total.compose(dist)
    return float(total.get_epsilon_for_delta(delta))


def standalone_epsilon(mech: Mechanism, delta: float) -> float:
    """Epsilon of one mechanism (all its steps) at ``delta``, by its tightest applicable accountant."""
    found = [e for e in (pld_epsilon([mech], delta), rdp_epsilon([mech], delta)) if e is not None]
    return min(found)


@dataclass(frozen=True)
class Composition:
    """Total epsilon of a list of mechanisms at a target delta, by accountant."""

    target_delta: float
    #: Accountant -> total epsilon (inf when it cannot reach target_delta), or None when not applicable.
    by_accountant: dict[str, float | None]
    #: The (epsilon_i, delta_i) each mechanism contributes to basic and advanced composition.
    pairs: tuple[tuple[float, float], ...]
    #: Why an accountant gave no figure.
    reasons: dict[str, str]

    @property
    def best(self) -> tuple[str, float]:
        """The tightest accountant and its epsilon."""
        usable = {k: v for k, v in self.by_accountant.items() if v is not None}
        name = min(usable, key=lambda k: (usable[k], ACCOUNTANTS.index(k)))
        return name, usable[name]


def inapplicable(accountant: str, mechanisms: Sequence[Mechanism], target_delta: float) -> str | None:
    """Why ``accountant`` cannot account for ``mechanisms`` at ``target_delta``, or None when it can.

    Read from the mechanisms' kinds alone, so a policy asking for an accountant
    its release's mechanisms rule out is refused before anything is composed.
    """
    if accountant == "rdp":
        if target_delta <= 0:
            return "Renyi accounting needs a positive target delta"
        if any(m.mechanism == "approximate" for m in mechanisms):
            return "an (epsilon, delta)-only mechanism has no Renyi curve"
    if accountant == "pld" and any(m.mechanism == "zcdp" for m in mechanisms):
        return "a zCDP-only mechanism has no privacy loss distribution"
    return None


def compose(mechanisms: Sequence[Mechanism], target_delta: float) -> Composition:
    """Total epsilon at ``target_delta`` of running every mechanism on the same original.

    Parameters
    ----------
    mechanisms : sequence of Mechanism
        The declared mechanisms (this release's sets and the ledger's).
    target_delta : float
        The total delta the policy allows, in [0, 1).

    Returns
    -------
    Composition
        Epsilon by each accountant; ``inf`` where the declared deltas alone
        exceed ``target_delta``.
    """
    if not mechanisms:
        raise ValueError("nothing to compose: no mechanism was declared")
    reasons: dict[str, str] = {}
    declared = [m.declared_pair for m in mechanisms]
    left = target_delta - sum(p[1] for p in declared if p is not None)
    undeclared = [i for i, p in enumerate(declared) if p is None]

    def with_shares(parts: int) -> list[tuple[float, float]] | None:
        """Declared pairs, undeclared mechanisms priced at an equal share of the delta left."""
        share = left / parts if parts else 0.0
        pairs = []
        for mech, pair in zip(mechanisms, declared, strict=True):
            if pair is None:
                if share <= 0:
                    return None
                pair = (standalone_epsilon(mech, share), share)
            pairs.append(pair)
        return pairs

    by: dict[str, float | None] = {}
    pairs = with_shares(len(undeclared))
    if pairs is not None and left >= -1e-12 * max(target_delta, 1e-300):
        by["basic"] = basic_composition(pairs)[0]
    else:
        by["basic"] = math.inf
        reasons["basic"] = "the declared deltas exceed the target delta"
    # Advanced composition keeps one more share as its slack, so the total delta is the target.
    shared = with_shares(len(undeclared) + 1)
    product = math.prod(1 - d for _, d in shared) if shared is not None else 0.0
    slack = 1 - (1 - target_delta) / product if product > 0 else -1.0
    if shared is not None and slack > 0:
        by["advanced"] = advanced_composition(shared, slack)[0]
    else:
        by["advanced"] = math.inf
        reasons["advanced"] = "the declared deltas leave no slack below the target delta"
    if pairs is None:
        pairs = [p if p is not None else (math.inf, 0.0) for p in declared]
    for name, epsilon_of in (("rdp", rdp_epsilon), ("pld", pld_epsilon)):
        reason = inapplicable(name, mechanisms, target_delta)
        by[name] = None if reason else epsilon_of(mechanisms, target_delta)
        if reason:
            reasons[name] = reason
    return Composition(target_delta, by, tuple(pairs), reasons)
