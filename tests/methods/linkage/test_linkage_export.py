"""Export of reverse-mapped synthetic sets (paper 000, sec. 3.1)."""

import numpy as np
import pandas as pd

from policycheck.methods.linkage.export import export_reverse_mapped
from policycheck.release.model import ColumnType, Dataset, Release

ORIGINAL = pd.DataFrame({"age": [30.0, 40.0, 50.0, 60.0], "job": ["a", "b", "b", "c"]})
TYPES = {"age": ColumnType.NUMERIC, "job": ColumnType.CATEGORICAL}


def make_release(*sets):
    synthetic = tuple(Dataset("synthetic", f"synthetic[{m}]", f) for m, f in enumerate(sets, start=1))
    return Release("r", Dataset("original", "original", ORIGINAL), synthetic, None, TYPES)


def test_each_set_is_written_as_a_permutation_of_the_original(tmp_path):
    noisy = pd.DataFrame({"age": [41.5, 29.0, 70.2, 55.0], "job": ["c", "b", "a", "a"]})
    paths = export_reverse_mapped(
        make_release(noisy, ORIGINAL), tmp_path, [np.random.default_rng(0), np.random.default_rng(1)]
    )
    assert [p.name for p in paths] == ["reverse_mapped_1_synthetic_1.csv", "reverse_mapped_2_synthetic_2.csv"]
    first = pd.read_csv(paths[0])
    # Ages rank 2, 1, 4, 3 -> 40, 30, 60, 50, printed as whole numbers.
    assert first["age"].tolist() == [40, 30, 60, 50]
    assert sorted(first["job"]) == sorted(ORIGINAL["job"])
    assert pd.read_csv(paths[1])["age"].tolist() == [30, 40, 50, 60]


def test_export_leaves_no_temporary_files(tmp_path):
    export_reverse_mapped(make_release(ORIGINAL), tmp_path / "out", [np.random.default_rng(0)])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["reverse_mapped_1_synthetic_1.csv"]


def test_a_smaller_set_is_supersampled_before_export(tmp_path):
    small = ORIGINAL.iloc[:2]
    (path,) = export_reverse_mapped(make_release(small), tmp_path, [np.random.default_rng(0)])
    exported = pd.read_csv(path)
    assert len(exported) == 4 and sorted(exported["age"]) == [30, 40, 50, 60]
