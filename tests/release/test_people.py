"""People with several records (policycheck.release.people): which id column names them, and how reports count them."""

import numpy as np
import pandas as pd

import policycheck as pc
from policycheck.release.model import ColumnType, Dataset, Release
from policycheck.release.people import people_counted, people_of


def _release(original_ids: list[str], holdout_ids: list[str]) -> Release:
    def dataset(role: str, ids: list[str]) -> Dataset:
        return Dataset(
            role, role, pd.DataFrame({"x": np.arange(len(ids), dtype=float)}), id_frame=pd.DataFrame({"nr": ids})
        )

    synthetic = Dataset("synthetic", "s", pd.DataFrame({"x": [0.0]}))
    return Release(
        "r", dataset("original", original_ids), (synthetic,), dataset("holdout", holdout_ids), {"x": ColumnType.NUMERIC}
    )


def test_an_id_column_whose_ids_repeat_counts_people_per_real_set():
    release = _release(["a", "a", "b", "c", "c", "c"], ["d", "d", "e"])
    assert people_counted(release) == ("nr", {"original": 3, "holdout": 2})
    assert people_of(release, "original").tolist() == [0, 0, 1, 2, 2, 2]
    assert people_of(release, "holdout").tolist() == [3, 3, 4]


def test_record_numbers_unique_in_every_set_are_not_people():
    release = _release(["1", "2", "3"], ["1", "2", "3"])
    assert people_counted(release) == (None, {})
    assert people_of(release, "original") is None


def test_a_report_names_the_person_key_and_counts_people_beside_records(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)

    def panel(first: int, people: int) -> pd.DataFrame:
        ids = np.repeat(np.arange(first, first + people), 4)
        return pd.DataFrame({"nr": ids, "x": rng.normal(size=ids.size), "c": rng.choice(list("ab"), ids.size)})

    (tmp_path / "p.yaml").write_text(
        'metadata: {id: panel, title: Panel, version: "1", owner: test}\n'
        "attacker: {model: no-box}\n"
        "rules:\n  - {id: copies, metric: exact_copy_share, threshold: {fail_above: 0.5}}\n"
    )
    release = pc.Release(original=panel(0, 30), synthetic=panel(100, 25), holdout=panel(200, 30), columns={"nr": "id"})
    report = pc.check(tmp_path / "p.yaml", release, executor="serial", progress=False).data
    assert report["release"]["person_key"] == "nr"
    sizes = {d["role"]: (d["rows"], d.get("people")) for d in report["release"]["datasets"]}
    assert sizes == {"original": (120, 30), "holdout": (120, 30), "synthetic": (100, None)}
