import sys
from pathlib import Path

import pandas as pd
import pytest

from policycheck.methods.reconstruction.external import command_arguments, run_external_synthesizer
from policycheck.methods.reconstruction.lp_attack import ReconstructionError

COPY_SCRIPT = """
import sys, pandas as pd
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
data = pd.read_csv(args["--input"])
data.sample(n=int(args["--rows"]), replace=True, random_state=int(args["--seed"])).to_csv(args["--output"], index=False)
"""


def test_placeholders_are_filled_inside_arguments_without_a_shell():
    args = command_arguments(
        "python synth.py --input {input} --output={output} --rows {rows} --seed {seed}",
        Path("/tmp/in put.csv"),
        Path("/tmp/out.csv"),
        10,
        7,
    )
    assert args == [
        "python",
        "synth.py",
        "--input",
        "/tmp/in put.csv",
        "--output=/tmp/out.csv",
        "--rows",
        "10",
        "--seed",
        "7",
    ]


def test_a_template_without_output_placeholder_is_refused():
    with pytest.raises(ReconstructionError, match="output"):
        command_arguments("python synth.py", Path("a"), Path("b"), 1, 1)


def test_the_external_synthesizer_output_is_read_back(tmp_path):
    (tmp_path / "synth.py").write_text(COPY_SCRIPT)
    original = pd.DataFrame({"a": ["x", "y", "z"], "b": [1, 2, 3]})
    template = f"{sys.executable} synth.py --input {{input}} --output {{output}} --rows {{rows}} --seed {{seed}}"
    synthetic = run_external_synthesizer(template, original, 12, 0, 60, tmp_path)
    assert list(synthetic.columns) == ["a", "b"] and len(synthetic) == 12
    assert set(synthetic["a"]) <= {"x", "y", "z"}


def test_a_failing_synthesizer_reports_its_exit_code_and_last_error_line(tmp_path):
    (tmp_path / "bad.py").write_text("import sys\nsys.exit('model diverged')\n")
    template = f"{sys.executable} bad.py {{input}} {{output}}"
    with pytest.raises(ReconstructionError, match="exited with code 1: model diverged"):
        run_external_synthesizer(template, pd.DataFrame({"a": [1]}), 1, 0, 60, tmp_path)


def test_a_synthesizer_over_its_time_limit_is_stopped(tmp_path):
    (tmp_path / "slow.py").write_text("import time\ntime.sleep(30)\n")
    template = f"{sys.executable} slow.py {{input}} {{output}}"
    with pytest.raises(ReconstructionError, match="did not finish within 0.5 s"):
        run_external_synthesizer(template, pd.DataFrame({"a": [1]}), 1, 0, 0.5, tmp_path)
