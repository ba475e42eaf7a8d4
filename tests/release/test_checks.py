"""Checks across the files of a release: same file twice, holdout overlap, id leak, extreme values."""

import numpy as np
import pandas as pd
import pytest
from conftest import binomial_tail_by_hand

from policycheck.core.errors import InvalidInput
from policycheck.release.checks import row_hashes
from policycheck.release.convert import label_categories, to_labels
from policycheck.release.load import build_release
from policycheck.release.manifest import ColumnDecl
from policycheck.release.model import SynthesizerInfo


def records(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "income": rng.normal(40_000, 9_000, n).round(2),
            "sex": rng.choice(["F", "M"], n),
        }
    )


def build(tmp_path, original, synthetic, holdout=None, columns=None):
    paths = {}
    for name, frame in (("o", original), ("s", synthetic), ("h", holdout)):
        if isinstance(frame, pd.DataFrame):
            frame.to_csv(tmp_path / f"{name}.csv", index=False)
            paths[name] = tmp_path / f"{name}.csv"
        else:
            paths[name] = frame  # a path given as is
    return build_release("r", paths["o"], [(paths["s"], "s", SynthesizerInfo())], paths["h"], columns)


def test_holdout_that_is_the_training_file_is_refused(tmp_path):
    original = records(100, 0)
    original.to_csv(tmp_path / "train.csv", index=False)
    with pytest.raises(InvalidInput) as exc:
        build(tmp_path, tmp_path / "train.csv", tmp_path / "train.csv", tmp_path / "train.csv")
    (problem,) = exc.value.problems
    assert str(problem).endswith(
        "train.csv: the holdout has the same file (sha256) as the original: a holdout must be "
        "real records the synthesizer never saw, in a file of its own"
    )


def test_holdout_with_the_training_rows_reordered_is_refused(tmp_path):
    original = records(100, 0)
    with pytest.raises(InvalidInput, match="the holdout has the same rows as the original"):
        build(tmp_path, original, records(100, 1), original.iloc[::-1])


def test_synthetic_set_that_is_the_holdout_is_refused(tmp_path):
    holdout = records(100, 2)
    with pytest.raises(InvalidInput, match="the synthetic set 's' has the same rows as the holdout"):
        build(tmp_path, records(100, 0), holdout.iloc[::-1], holdout)


def test_synthetic_copy_of_the_original_is_checked_and_noted(tmp_path):
    original = records(100, 0)
    release = build(tmp_path, original, original, records(100, 1))
    assert release.findings == [
        "synthetic set 's' has the same file (sha256) as the original: it is checked as a verbatim copy"
    ]


def test_partial_holdout_overlap_is_a_finding_with_its_share(tmp_path):
    original, other = records(100, 0), records(100, 1)
    holdout = pd.concat([original.iloc[:30], other.iloc[:70]])
    release = build(tmp_path, original, records(100, 2), holdout)
    # 30 of 100 holdout rows are training rows; no training row repeats another (income has cents), so chance
    # is at most Clopper-Pearson's 99.9% bound of 0/100, and 30 of 100 beyond it has p = 1.5e-12.
    chance = 1 - 0.001 ** (1 / 100)
    assert release.findings == [
        f"holdout: 30 of 100 holdout rows (30.0%) equal a training row, against at most {chance:.1%} by chance "
        f"(p = {binomial_tail_by_hand(30, 100, chance):.1e}; chance: 0 of 100 training rows equal another training "
        "row, at its 99.9% upper bound); the holdout overlaps the training data, which weakens every holdout control"
    ]


def test_a_holdout_split_at_random_from_coarse_records_is_not_reported_as_overlapping(tmp_path):
    # Coarse records repeat by chance: the holdout shares rows with the training set about as often as
    # training rows repeat each other, and the share measured crosses that chance about every other time.
    rng = np.random.default_rng(5)
    coarse = pd.DataFrame({"code": rng.integers(0, 300, 3000).astype(str), "sex": rng.choice(["F", "M"], 3000)})
    original, holdout, synthetic = coarse.iloc[:1000], coarse.iloc[1000:2000], coarse.iloc[2000:]
    shared = holdout.merge(original.drop_duplicates(), how="inner").shape[0] / 1000
    repeated = original.duplicated(keep=False).mean()
    assert shared > repeated  # 83.4% against 80.5%: the share crosses the point estimate of chance on this split
    assert build(tmp_path, original, synthetic, holdout).findings == []


def test_holdout_mostly_training_rows_is_refused(tmp_path):
    original, other = records(100, 0), records(100, 1)
    holdout = pd.concat([original.iloc[:60], other.iloc[:40]])
    with pytest.raises(InvalidInput, match=r"60 of 100 holdout rows \(60.0%\) equal a training row.*refused above 50%"):
        build(tmp_path, original, other, holdout)


def test_overlap_no_greater_than_chance_is_not_reported(tmp_path):
    # Coarse data: every row repeats within the training data, so equal rows across files say nothing.
    coarse = pd.DataFrame({"sex": ["F", "M"] * 50, "smoker": ["y", "y", "n", "n"] * 25})
    release = build(tmp_path, coarse, coarse.iloc[:50], coarse.iloc[::-1].reset_index(drop=True).iloc[:60])
    assert release.findings == []


def test_a_synthetic_set_half_made_of_holdout_records_is_refused(tmp_path):
    # Trained on training and holdout together: half the synthetic rows are holdout records.
    original, holdout = records(100, 0), records(100, 1)
    # No holdout record equals another (income has cents): chance is at most Clopper-Pearson's 99.9% bound of 0/100.
    chance = 1 - 0.001 ** (1 / 100)
    p = binomial_tail_by_hand(50, 100, chance)
    with pytest.raises(InvalidInput) as exc:
        build(tmp_path, original, pd.concat([original.iloc[:50], holdout.iloc[:50]]), holdout)
    (problem,) = exc.value.problems
    assert str(problem).endswith(
        f"h.csv: synthetic set 's': 50 of its 100 rows (50.0%) copy a holdout record that no training record "
        f"equals, against at most {chance:.2%} by chance (p = {p:.1e}; chance: 0 of 100 holdout records equal "
        "another holdout record and no training record, at its 99.9% upper bound): the synthesizer saw the holdout, "
        "so it cannot be the control of records the synthesizer never saw, and those synthetic records are real "
        "ones (refused at p < 1e-6 and over twice chance)"
    )


def test_a_few_holdout_records_in_a_synthetic_set_beyond_chance_are_a_finding(tmp_path):
    original, holdout = records(1000, 0), records(1000, 1)
    chance = 1 - 0.001 ** (1 / 1000)
    p = binomial_tail_by_hand(20, 1000, chance)  # 3.3e-05: beyond chance, short of a refusal
    release = build(tmp_path, original, pd.concat([records(980, 2), holdout.iloc[:20]]), holdout)
    assert release.findings == [
        f"synthetic set 's': 20 of its 1,000 rows (2.0%) copy a holdout record that no training record equals, "
        f"against at most {chance:.2%} by chance (p = {p:.1e}; chance: 0 of 1,000 holdout records equal another "
        "holdout record and no training record, at its 99.9% upper bound): the synthesizer may have seen the "
        "holdout, which weakens every holdout control"
    ]


def test_holdout_records_in_a_synthetic_set_within_chance_are_not_reported(tmp_path):
    # 16 copies in 1,000: p = 0.002 against the bound of 0/1,000, not beyond chance at 1e-3.
    original, holdout = records(1000, 0), records(1000, 1)
    release = build(tmp_path, original, pd.concat([records(984, 2), holdout.iloc[:16]]), holdout)
    assert release.findings == []


def test_a_synthesizer_that_never_saw_the_holdout_lands_on_its_records_at_chance_and_is_not_reported(tmp_path):
    # Coarse records: training, holdout and synthetic drawn alike, so the synthetic set lands on holdout-only
    # records (about 12% of its rows here) only as often as the holdout's own records land on each other's.
    rng = np.random.default_rng(7)

    def draw(n):
        return pd.DataFrame({"code": rng.integers(0, 500, n).astype(str), "sex": rng.choice(["F", "M"], n)})

    original, holdout, synthetic = draw(1000), draw(1000), draw(1000)
    hold_only = set(map(tuple, holdout.values)) - set(map(tuple, original.values))
    assert sum(tuple(row) in hold_only for row in synthetic.values) > 50  # it does land on them
    findings = build(tmp_path, original, synthetic, holdout).findings
    assert not [f for f in findings if "copy a holdout record" in f], findings


def test_synthetic_ids_equal_to_real_ids_are_a_finding(tmp_path):
    original = records(100, 0).assign(pid=[f"P{i:03d}" for i in range(100)])
    synthetic = records(100, 1).assign(pid=[f"P{i:03d}" for i in range(75, 175)])
    synthetic.iloc[0, :3] = original.iloc[75, :3]  # row 0 carries P075 and is that person's record
    release = build(tmp_path, original, synthetic, columns={"pid": ColumnDecl(type="id")})
    assert release.findings == [
        "synthetic set 's': 25 of 100 rows (25.0%) carry the id of an original record in id column 'pid', and 1 of "
        "them equal that record in every analysed column; an id shared with the original publishes that the person "
        "was in the data: give synthetic records new ids"
    ]


def panel(people, first, seed):
    """``people`` people numbered from ``first``, four records each (a panel: one per year)."""
    return records(4 * people, seed).assign(person=np.repeat(np.arange(first, first + people), 4))


PERSON = {"person": ColumnDecl(type="id")}


def test_holdout_records_of_training_people_are_a_finding(tmp_path):
    original = panel(25, 0, 0)
    holdout = pd.concat([panel(20, 100, 1), original.iloc[[0, 1, 5, 9, 13]]])  # people 0, 1, 2 and 3
    release = build(tmp_path, original, records(100, 2), holdout, PERSON)
    assert [f for f in release.findings if "person" in f] == [
        "holdout: 5 of 85 holdout records (5.9%) belong to 4 people whose id in id column 'person' also names "
        "training records (its ids repeat: a person's several records); the holdout is split by record, not by "
        "person, which weakens every holdout control: split the records by 'person'"
    ]


def test_a_holdout_split_by_record_from_a_panel_is_refused(tmp_path):
    # 50 people's 200 records shuffled and halved: 92 of the holdout's 100 records belong to 42 of its 44
    # people who have records in the training half too.
    everyone = panel(50, 0, 0).sample(frac=1, random_state=3)
    original, holdout = everyone.iloc[:100], everyone.iloc[100:]
    with pytest.raises(InvalidInput) as exc:
        build(tmp_path, original, records(100, 2), holdout, PERSON)
    (problem,) = exc.value.problems
    assert str(problem).endswith(
        "h.csv: 92 of 100 holdout records (92.0%) belong to 42 people whose id in id column 'person' "
        "also names training records (its ids repeat: a person's several records): the holdout was split by record, "
        "not by person, so it cannot be the control of people the synthesizer never saw (refused above 50%): split "
        "the records by 'person', or declare 'person' ignore if it does not name a person"
    )


def test_a_panel_split_by_person_is_no_finding(tmp_path):
    release = build(tmp_path, panel(25, 0, 0), records(100, 2), panel(25, 25, 1), PERSON)
    assert release.findings == []


def test_record_numbers_shared_by_two_files_are_not_taken_for_people(tmp_path):
    numbered = {"row": ColumnDecl(type="id")}
    original, holdout = (records(100, seed).assign(row=np.arange(1, 101)) for seed in (0, 1))
    assert build(tmp_path, original, records(100, 2), holdout, numbered).findings == []


def test_a_synthetic_column_empty_in_every_record_is_a_finding(tmp_path):
    synthetic = records(100, 1).assign(age=np.nan, sex="")  # written to CSV as empty fields
    release = build(tmp_path, records(100, 0), synthetic)
    assert release.findings == [
        "synthetic set 's' holds no value in columns 'age', 'sex' (empty in all 100 records): the release says "
        "nothing of them, and every distance to its records counts each as a difference from a record holding a "
        "value"
    ]


def test_a_synthetic_column_missing_in_some_records_only_is_no_finding(tmp_path):
    synthetic = records(100, 1)
    synthetic.loc[1:, "age"] = np.nan  # one value left
    assert build(tmp_path, records(100, 0), synthetic).findings == []


def test_extreme_value_in_a_synthetic_set_is_refused(tmp_path):
    synthetic = records(100, 1).astype({"age": float})
    synthetic.loc[5, "age"] = 1e308
    with pytest.raises(
        InvalidInput,
        match=r"s.csv: column 'age' row 7 holds 1e\+308, .* times the width of the "
        r"original's central 98% .* beyond it: it would stretch",
    ):
        build(tmp_path, records(100, 0), synthetic)


def test_far_out_value_is_a_finding(tmp_path):
    original = pd.DataFrame({"x": np.arange(100.0)[::-1] + 0.5, "sex": ["F", "M"] * 50})
    synthetic = original.copy()
    synthetic.loc[3, "x"] = 99 + 2_000 * 98  # (196099 - 98.51) / 97.02 = 2,020 widths of the central 98% beyond it
    release = build(tmp_path, original, synthetic)
    (finding,) = release.findings
    assert finding.startswith(
        "synthetic set 's': column 'x' row 5 holds 196099, 2.02e+03 times the width of the "
        "original's central 98% (1.49 to 98.51) beyond it"
    )


def test_integer_beyond_64_bits_is_reported(tmp_path):
    (tmp_path / "o.csv").write_text("big,sex\n" + "".join(f"{10**20 + i * 10**18},{'FM'[i % 2]}\n" for i in range(4)))
    release = build_release("r", tmp_path / "o.csv", [(tmp_path / "o.csv", "s", SynthesizerInfo())])
    assert release.roles["big"] == "numeric"
    assert release.findings[0] == (
        "original: column 'big' row 2 holds 100000000000000000000, an integer beyond 64 "
        "bits (4 such values): read as the floating-point number 1e+20, rounded"
    )


def test_row_hashes_from_the_loaders_categories_are_pandas_hashes_of_the_labels():
    read = pd.Series(["b", 3.0, None, "a", 3, "b", np.nan], dtype=object)
    labels = pd.DataFrame({"x": np.arange(7.0), "c": pd.Series(to_labels(read), dtype=object)})
    expected = pd.util.hash_pandas_object(labels, index=False).to_numpy()
    assert row_hashes(labels, {"c": label_categories(read)}).tolist() == expected.tolist()


def build_sets(tmp_path, *synthetic):
    """A release of o.csv and the synthetic paths given (each relative to tmp_path), named s0, s1, ..."""
    records(60, 0).to_csv(tmp_path / "o.csv", index=False)
    sets = [(tmp_path / p, f"s{i}", SynthesizerInfo()) for i, p in enumerate(synthetic)]
    return build_release("r", tmp_path / "o.csv", sets)


@pytest.mark.parametrize("second", ["./s.csv", "sub/../s.csv", "link.csv"], ids=["dot", "dotdot", "symlink"])
def test_a_synthetic_file_given_twice_is_refused_naming_the_file(tmp_path, second):
    records(60, 1).to_csv(tmp_path / "s.csv", index=False)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.csv").symlink_to(tmp_path / "s.csv")
    with pytest.raises(InvalidInput) as exc:
        build_sets(tmp_path, "s.csv", second)
    assert exc.value.exit_code == 2
    assert [str(p) for p in exc.value.problems] == [
        "s.csv: the same file is given twice as a synthetic set ('s0' and 's1'): give each synthetic file once"
    ]


def test_two_synthetic_files_of_the_same_content_are_allowed_and_noted(tmp_path):
    records(60, 1).to_csv(tmp_path / "s.csv", index=False)
    records(60, 1).to_csv(tmp_path / "copy.csv", index=False)
    release = build_sets(tmp_path, "s.csv", "copy.csv")
    assert len(release.synthetic) == 2
    assert "synthetic set 's1' has the same file (sha256) as synthetic set 's0': the release counts it twice" in (
        release.findings
    )


def test_rows_found_among_hashes_are_numpys_isin_whether_searched_sorted_or_not():
    from policycheck.release.checks import RowHashes
    from policycheck.release.model import Dataset

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"x": rng.integers(0, 40, 500).astype(float), "c": rng.choice(["a", "b"], 500)})
    table = np.sort(row_hashes(frame.iloc[::3]))  # every third row, with the repeats of the others
    expected = np.isin(row_hashes(frame), table)
    unsorted = RowHashes()
    data = Dataset("synthetic", "s", frame)
    assert unsorted.among(data, table).tolist() == expected.tolist()
    presorted = RowHashes()
    presorted.order(data)  # the loader's threads sort each set's hashes
    assert presorted.among(data, table).tolist() == expected.tolist()
    assert 0 < expected.sum() < len(frame)
