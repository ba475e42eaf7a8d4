"""The examples of docs/api.md run as written (doctests)."""

import doctest
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_api_guide_examples_run(tmp_path):
    # The guide runs from a folder holding the repository's policies/ (the autouse
    # fixture of conftest.py has already made tmp_path the working folder).
    shutil.copytree(REPO / "policies", tmp_path / "policies")
    failures, tried = doctest.testfile(
        str(REPO / "docs" / "api.md"),
        module_relative=False,
        # No NORMALIZE_WHITESPACE: the page's outputs are what a reader sees from plain
        # `python -m doctest docs/api.md`, whatever the pandas version lays a table out as.
        optionflags=doctest.ELLIPSIS,
        verbose=False,
        report=True,
    )
    assert tried > 10
    assert failures == 0
