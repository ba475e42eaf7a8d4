"""``policycheck schema``: the JSON Schemas of the policy language and of report.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from policycheck.core.errors import display_path
from policycheck.interfaces.cli.common import echo, guard


@click.command()
@click.option("--report", "which", flag_value="report", help="Print the report.json schema instead.")
@click.option("--policy", "which", flag_value="policy", default=True, hidden=True)
@click.option("--write", "write_dir", type=click.Path(path_type=Path), help="Write both schemas into this folder.")
@guard
def schema(which: str, write_dir: Path | None) -> None:
    """Print the JSON Schema of the policy language (draft-07, for editors)."""
    from policycheck.io.outputs import atomic_write_text
    from policycheck.policy.schema import policy_schema
    from policycheck.report.schema import report_schema

    if write_dir:
        for name, s in (("policy.schema.json", policy_schema()), ("report.schema.json", report_schema())):
            atomic_write_text(Path(write_dir) / name, _dump(s))
            echo(f"wrote {display_path(Path(write_dir) / name)}")
        return
    echo(_dump(report_schema() if which == "report" else policy_schema()), nl=False, lines=True)


def _dump(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
