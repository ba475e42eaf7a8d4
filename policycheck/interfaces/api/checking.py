"""The Python API's check: the one check path (:mod:`policycheck.interfaces.check`) given API objects."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from policycheck.core.errors import InvalidInput
from policycheck.interfaces.api.policy import Policy, PolicyError, load_policy
from policycheck.interfaces.api.release import Release
from policycheck.interfaces.api.report import Report

if TYPE_CHECKING:
    from policycheck.policy.load import LoadedPolicy


def check(
    policy: Policy | str | Path,
    release: Release,
    *,
    seed: int | None = None,
    workers: int | None = None,
    executor: str = "local",
    progress: bool | Literal["plain"] | None = None,
    fail_on_warn: bool = False,
    command: Sequence[str] = (),
    scheduler: str | None = None,
    run_synthesizer: bool = False,
) -> Report:
    """Check ``release`` against ``policy``; return the report (nothing is written).

    The policy is validated against the release's columns first (a loaded
    :class:`Policy` is not read again), so an invalid policy raises
    :class:`PolicyError` before any computation. ``seed`` overrides the
    policy's (same inputs and seed, same numbers); ``workers`` and
    ``executor`` choose where heavy work runs; ``progress`` shows progress on
    stderr: a live line per plan step on a terminal, plain lines elsewhere or
    with ``"plain"`` (default: when stderr is a terminal). A rule that would
    run the synthesizer command a release declares raises ``pc.InputError``
    unless ``run_synthesizer`` is True (a Python synthesizer given to
    :class:`Release` needs no such consent: it is your own code).
    """
    from policycheck.interfaces.check import CheckOptions
    from policycheck.interfaces.check import check as run_check

    loaded = _for_release(policy, release)
    options = CheckOptions(
        seed=seed,
        fail_on_warn=fail_on_warn,
        executor=executor,
        workers=workers,
        scheduler=scheduler,
        progress=sys.stderr.isatty() if progress is None else progress,
        command=tuple(command),
        run_synthesizer=run_synthesizer,
    )
    return Report(run_check(loaded, release._release, options))


def _for_release(policy: Policy | str | Path, release: Release) -> LoadedPolicy:
    """The policy validated against ``release``: a loaded one checked again without re-reading its files."""
    from policycheck.policy.load import validate_for_release

    if not isinstance(policy, Policy):
        return load_policy(policy, release)._loaded
    try:
        return validate_for_release(policy._loaded, release._release)
    except InvalidInput as exc:
        raise PolicyError(exc.problems) from None
