"""Reading a release's files on several threads (``build_release(threads=...)``) gives what one thread gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from policycheck.core.errors import InvalidInput
from policycheck.release.load import build_release
from policycheck.release.manifest import ColumnDecl
from policycheck.release.model import SynthesizerInfo

DECLARED = {"age": ColumnDecl(type="numeric"), "score": ColumnDecl(type="numeric")}


def load(folder, synthetic: list[str], threads: int):
    return build_release(
        "r",
        folder / "o.csv",
        [(folder / name, name, SynthesizerInfo()) for name in synthetic],
        folder / "h.csv",
        DECLARED,
        threads=threads,
    )


def test_every_files_problems_come_in_file_order_on_two_threads(tmp_path):
    (tmp_path / "o.csv").write_text("age,score,sex\n30,1,F\n40,2,M\n50,3,F\n60,4,M\n")
    (tmp_path / "s1.csv").write_text("age,score,sex,extra\n30,1,F,x\n40,2,M,y\n50,3,F,z\n60,4,M,w\n")
    (tmp_path / "s2.csv").write_text("age,score,sex\n30,abc,F\n40,2,M\n50,3,F\n60,4,M\n")
    (tmp_path / "h.csv").write_text("age,score,sex\n31,1,F\nold,2,M\n51,3,F\n61,4,M\n")
    said = []
    for threads in (1, 2):
        with pytest.raises(InvalidInput) as caught:
            load(tmp_path, ["s1.csv", "s2.csv"], threads)
        said.append([p.message for p in caught.value.problems])
    assert (
        said[0]
        == said[1]
        == [
            "columns differ from the original: extra columns ['extra']",
            "column 'score' is numeric but row 2 holds 'abc'",
            "column 'age' is numeric but row 3 holds 'old'",
        ]
    )


def test_an_unreadable_original_is_refused_first_on_two_threads(tmp_path):
    (tmp_path / "o.csv").write_text("")
    (tmp_path / "s1.csv").write_bytes(b"age\n\x00\n")
    (tmp_path / "h.csv").write_text("age,score\n1,2\n")
    with pytest.raises(InvalidInput) as caught:
        load(tmp_path, ["s1.csv"], 2)
    assert [p.message for p in caught.value.problems] == ["data file is empty"]


def test_two_threads_build_the_release_one_thread_builds(tmp_path):
    rng = np.random.default_rng(3)
    frames = {
        name: pd.DataFrame(
            {
                "age": rng.integers(18, 90, rows),
                "score": rng.normal(size=rows).round(3),
                "sex": rng.choice(["F", "M", ""], rows),
            }
        )
        for name, rows in (("o.csv", 300), ("h.csv", 250))
    }
    frames["s1.csv"] = frames["o.csv"].sample(frac=1, random_state=0)  # the original's rows, shuffled
    for name, frame in frames.items():
        frame.to_csv(tmp_path / name, index=False)
    (tmp_path / "s2.csv").write_bytes((tmp_path / "o.csv").read_bytes())  # the original's file
    one, two = (load(tmp_path, ["s1.csv", "s2.csv"], threads) for threads in (1, 2))
    assert (
        two.findings
        == one.findings
        == [
            "synthetic set 's1.csv' has the same rows as the original: it is checked as a verbatim copy",
            "synthetic set 's2.csv' has the same file (sha256) as the original: it is checked as a verbatim copy",
            "synthetic set 's2.csv' has the same rows as synthetic set 's1.csv': the release counts it twice",
        ]
    )
    for a, b in zip(one.datasets(), two.datasets(), strict=True):
        pd.testing.assert_frame_equal(a.frame, b.frame)
        assert (a.role, a.name, a.path, a.sha256) == (b.role, b.name, b.path, b.sha256)
    assert (two.column_types, two.roles, two.role_sources) == (one.column_types, one.roles, one.role_sources)


def write_overlapping_holdout(folder) -> None:
    """Training: 100 distinct rows, none equal to another (chance at most 1 - 0.001^(1/100) = 6.7%).
    Holdout: 5 of its 10 rows are training rows: p = P(X >= 5), X ~ Binomial(10, 0.0667) = 2.5e-04."""
    train = [f"{20 + i % 60},{i},{'FM'[i % 2]}" for i in range(100)]
    hold = train[:5] + [f"{70 + i},{500 + i},F" for i in range(5)]
    (folder / "o.csv").write_text("age,score,sex\n" + "\n".join(train) + "\n")
    (folder / "h.csv").write_text("age,score,sex\n" + "\n".join(hold) + "\n")


def test_the_holdout_overlap_counted_on_hashes_made_on_threads_is_the_one_thread_count(tmp_path):
    write_overlapping_holdout(tmp_path)
    (tmp_path / "s1.csv").write_text("age,score,sex\n30,1,F\n41,2,M\n")
    said = [load(tmp_path, ["s1.csv"], threads).findings for threads in (1, 2)]
    assert (
        said[0]
        == said[1]
        == [
            "holdout: 5 of 10 holdout rows (50.0%) equal a training row, against at most 6.7% by chance "
            "(p = 2.5e-04; chance: 0 of 100 training rows equal another training row, at its 99.9% upper bound); the "
            "holdout overlaps the training data, which weakens every holdout control"
        ]
    )


def test_the_reading_threads_count_what_the_role_checks_ask_and_nothing_more(tmp_path, monkeypatch):
    import threading

    import policycheck.release.load as load_module

    asked = []
    counted = load_module.present_counts_of

    def recording(series, factorized):
        asked.append((len(series), series.name, threading.current_thread() is threading.main_thread()))
        return counted(series, factorized)

    monkeypatch.setattr(load_module, "present_counts_of", recording)
    (tmp_path / "o.csv").write_text("age,score,sex,area,pid\n30,1,F,N,a\n40,2,M,S,b\n50,3,F,N,c\n60,4,M,S,d\n")
    (tmp_path / "s1.csv").write_text("age,score,sex,area,pid\n30,1,F,N,a\n40,2,M,S,b\n")
    (tmp_path / "h.csv").write_text("age,score,sex,area,pid\n31,1,F,S,e\n41,2,M,N,f\n51,3,F,N,g\n")
    declared = {**DECLARED, "area": ColumnDecl(type="categorical"), "pid": ColumnDecl(type="id")}
    for threads in (1, 2):
        asked.clear()
        build_release(
            "r",
            tmp_path / "o.csv",
            [(tmp_path / "s1.csv", "s1", SynthesizerInfo())],
            tmp_path / "h.csv",
            declared,
            threads=threads,
        )
        # Text columns only: the original's analysed and undeclared ones, the other files' undeclared one;
        # never the id column, nor a declared column of a file other than the original.
        assert sorted((rows, column) for rows, column, _ in asked) == [(2, "sex"), (3, "sex"), (4, "area"), (4, "sex")]
        assert {here for _, _, here in asked} == ({True} if threads == 1 else {False})


def test_each_file_digested_on_its_own_thread_gets_the_sha256_of_its_bytes(tmp_path):
    import hashlib

    (tmp_path / "o.csv").write_text("age,score,sex\n30,1,F\n40,2,M\n50,3,F\n60,4,M\n")
    (tmp_path / "s1.csv").write_text("age,score,sex\n31,1,F\n41,2,M\n")
    (tmp_path / "h.csv").write_text("age,score,sex\n32,1,F\n42,2,M\n52,3,F\n")
    release = load(tmp_path, ["s1.csv"], 2)
    assert [(d.name, d.sha256) for d in release.datasets()] == [
        (name, hashlib.sha256((tmp_path / f).read_bytes()).hexdigest())
        for name, f in (("original", "o.csv"), ("s1.csv", "s1.csv"), ("holdout", "h.csv"))
    ]


def test_a_far_out_value_checked_beside_the_row_checks_keeps_its_finding_last(tmp_path):
    # The overlap finding, as above, and a synthetic score 2,020 widths of the original's central 98% beyond
    # it (the extremes' finding).
    write_overlapping_holdout(tmp_path)
    (tmp_path / "s1.csv").write_text("age,score,sex\n30,1,F\n41,196099,M\n")
    said = [load(tmp_path, ["s1.csv"], threads).findings for threads in (1, 2)]
    assert said[0] == said[1]
    assert [f.split(":")[0] for f in said[1]] == ["holdout", "synthetic set 's1.csv'"]
    assert said[1][1].startswith("synthetic set 's1.csv': column 'score' row 3 holds 196099")


def test_an_extreme_value_found_beside_the_row_checks_is_refused_as_on_one_thread(tmp_path):
    (tmp_path / "o.csv").write_text("age,score,sex\n30,1,F\n40,2,M\n50,3,F\n60,4,M\n")
    (tmp_path / "s1.csv").write_text("age,score,sex\n30,1e308,F\n40,2,M\n")
    (tmp_path / "h.csv").write_text("age,score,sex\n31,1,F\n41,2,M\n51,3,F\n")
    said = []
    for threads in (1, 2):
        with pytest.raises(InvalidInput) as caught:
            load(tmp_path, ["s1.csv"], threads)
        said.append([(p.file, p.message.split(",")[0]) for p in caught.value.problems])
    assert said[0] == said[1] == [("s1.csv", "column 'score' row 2 holds 1e+308")]
