"""Running a synthesizer the release declares as a command template.

The attribute inference game re-runs the synthesizer on a modified original
(paper 001, sec. 4.1, step 4). A release names its synthesizer as a command
template with the placeholders ``{input}``, ``{output}``, ``{rows}`` and
``{seed}``, e.g. ``python synth.py --input {input} --output {output} --rows
{rows} --seed {seed}``. The template is split into arguments first and the
placeholders filled in each argument, so paths with spaces need no quoting
and nothing reaches a shell.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pandas as pd

from policycheck.core.plural import noun
from policycheck.io.scratch import scratch_folder
from policycheck.methods.reconstruction.lp_attack import ReconstructionError

PLACEHOLDERS = ("{input}", "{output}", "{rows}", "{seed}")


def command_arguments(template: str, input_path: Path, output_path: Path, rows: int, seed: int) -> list[str]:
    """The argument vector of ``template`` with its placeholders filled in."""
    if "{output}" not in template:
        raise ReconstructionError(f"synthesizer command {template!r} has no {{output}} placeholder")
    values = {"input": str(input_path), "output": str(output_path), "rows": str(rows), "seed": str(seed)}
    args = []
    for token in shlex.split(template):
        for key, value in values.items():
            token = token.replace("{" + key + "}", value)
        args.append(token)
    return args


def run_external_synthesizer(
    template: str,
    original: pd.DataFrame,
    rows: int,
    seed: int,
    time_limit: float,
    workdir: Path,
) -> pd.DataFrame:
    """Fit and sample the external synthesizer once; return its synthetic data.

    Parameters
    ----------
    template
        Command template (see module docstring).
    original
        The data the synthesizer is fitted on, written as CSV to ``{input}``.
    rows, seed
        Values of ``{rows}`` and ``{seed}``.
    time_limit
        Seconds before the command is killed.
    workdir
        Working directory of the command (the policy's folder, so relative
        script paths resolve as the release author wrote them).

    Raises
    ------
    ReconstructionError
        When the command cannot start, times out, exits non-zero, or writes no
        CSV with the original's columns.
    """
    with scratch_folder("synth") as tmp:  # holds a copy of the original records: removed even after a kill
        input_path, output_path = tmp / "input.csv", tmp / "output.csv"
        original.to_csv(input_path, index=False)
        args = command_arguments(template, input_path, output_path, rows, seed)
        try:
            done = subprocess.run(args, cwd=workdir, capture_output=True, text=True, timeout=time_limit, check=False)
        except subprocess.TimeoutExpired:
            raise ReconstructionError(
                f"synthesizer command {template!r} did not finish within {time_limit:g} s"
            ) from None
        except OSError as exc:
            raise ReconstructionError(f"synthesizer command {template!r} could not start: {exc}") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no error output)"])[-1]
            raise ReconstructionError(f"synthesizer command {template!r} exited with code {done.returncode}: {last}")
        if not output_path.exists():
            raise ReconstructionError(f"synthesizer command {template!r} wrote no file at {{output}}")
        synthetic = pd.read_csv(output_path, keep_default_na=False, na_values=[""])
    missing = [c for c in original.columns if c not in synthetic.columns]
    if missing:
        raise ReconstructionError(
            f"synthesizer command {template!r} wrote data without the "
            f"{noun(len(missing), 'column')} {', '.join(missing)}"
        )
    return synthetic[list(original.columns)]
