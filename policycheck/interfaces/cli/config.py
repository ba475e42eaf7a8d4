"""``policycheck config``: the settings in force and where each comes from."""

from __future__ import annotations

import json

import click

from policycheck.interfaces.cli.common import guard


@click.command(name="config")
@click.option("--json", "as_json", is_flag=True, help="Print the settings as JSON.")
@guard
def show_config(as_json: bool) -> None:
    """Show the settings in force: [tool.policycheck] of the nearest pyproject.toml over the defaults."""
    from policycheck.io.config import load_settings, show

    settings = load_settings({})
    if as_json:
        click.echo(
            json.dumps(
                {
                    "pyproject": str(settings.pyproject) if settings.pyproject else None,
                    "settings": settings.values,
                    "sources": settings.sources,
                },
                indent=2,
            )
        )
    else:
        click.echo(show(settings), nl=False)
