"""policycheck: privacy policy-as-code for synthetic data releases.

The flow is one direction: policy YAML -> validated model (``policy``) ->
compiled plan (``compiler``) -> evaluators (``metrics``) -> verdicts
(``verdicts``) -> reports (``report``).

The Python API (docs/api.md) is importable from here::

    import policycheck as pc
    report = pc.check(pc.load_policy("p.policy.yaml"), pc.Release(original=df, synthetic=[syn]))

Its names load on first use, so ``import policycheck`` (and every CLI
command that needs no data) stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from policycheck.core.version import __version__

#: The public API, all defined in the package :mod:`policycheck.interfaces.api`.
__all__ = [
    "FORMATS",
    "InputError",
    "Policy",
    "PolicyError",
    "Problem",
    "Release",
    "Report",
    "__version__",
    "check",
    "load_policy",
    "load_release",
    "validate",
]

if TYPE_CHECKING:
    from policycheck.interfaces.api import (
        FORMATS,
        InputError,
        Policy,
        PolicyError,
        Problem,
        Release,
        Report,
        check,
        load_policy,
        load_release,
        validate,
    )


def __getattr__(name: str) -> Any:
    if name in __all__ and name != "__version__":
        from policycheck.interfaces import api

        return getattr(api, name)
    raise AttributeError(f"module 'policycheck' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
