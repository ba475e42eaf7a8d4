"""``policycheck metrics``: the registered metrics with their parameters."""

from __future__ import annotations

import click

from policycheck.interfaces.cli.common import echo, guard


@click.command(name="metrics")
@guard
def list_metrics() -> None:
    """List the registered metrics with their parameters."""
    from policycheck.metrics import registry
    from policycheck.metrics.base import KNOWLEDGE_WORDS

    for name, spec in sorted(registry.metrics().items()):
        echo(f"{name} ({spec.family}): {spec.summary}")
        for field, info in spec.params.model_fields.items():
            default = "required" if info.is_required() else f"default {info.get_default(call_default_factory=True)!r}"
            echo(f"    {field}: {info.description or ''} [{default}]")
        words = "; ".join(KNOWLEDGE_WORDS[k] for k in sorted(spec.knowledge, key=lambda k: k.value)) or "none"
        echo(f"    attacker knowledge: {words}")
        safer = "higher is safer" if spec.fail_direction == "below" else "higher is riskier"
        echo(f"    threshold: fail_{spec.fail_direction} ({safer})")
