"""What verify compares of a re-run against an older report: only what that report could record."""

from policycheck.interfaces.verify.differences import as_recorded_by

NEW = {
    "provenance": {
        "synthesizer_files": [
            {"file": "synth.py", "sha256": "a"},
            {"file": "helpers.py", "sha256": "b", "imported_by": "synth.py"},
            {"file": "pkg/run.py", "sha256": "c", "module": "pkg.run"},
        ],
        "seed": 1,
    }
}


def test_entries_recorded_since_a_later_schema_are_left_out_for_an_older_report():
    assert as_recorded_by(NEW, (1, 5))["provenance"] == {
        "synthesizer_files": [{"file": "synth.py", "sha256": "a"}],
        "seed": 1,
    }
    assert [f["file"] for f in as_recorded_by(NEW, (1, 6))["provenance"]["synthesizer_files"]] == [
        "synth.py",
        "helpers.py",
    ]


def test_a_report_of_the_current_schema_is_compared_whole_and_the_re_run_is_left_as_it_is():
    assert as_recorded_by(NEW, (1, 8)) is NEW
    as_recorded_by(NEW, (1, 5))
    assert len(NEW["provenance"]["synthesizer_files"]) == 3


FINDING = "synthesizer command: synth.py:3 (importlib.import_module) imports by a name ..."


def test_a_finding_stated_since_a_later_schema_is_left_out_for_an_older_report():
    rerun = {"release": {"findings": ["finding one", FINDING]}}
    assert as_recorded_by(rerun, (1, 7))["release"]["findings"] == ["finding one"]
    assert as_recorded_by(rerun, (1, 8))["release"]["findings"] == ["finding one", FINDING]


def test_a_module_an_older_report_could_not_find_is_left_out_and_the_rest_compared():
    # A 1.7 report's check did not follow import_module("plugin"); the re-run hashes plugin.py too.
    older = {"provenance": {"synthesizer_files": NEW["provenance"]["synthesizer_files"]}}
    rerun = {
        "provenance": {
            "synthesizer_files": [
                *NEW["provenance"]["synthesizer_files"],
                {"file": "plugin.py", "sha256": "d", "imported_by": "synth.py"},
            ]
        }
    }
    assert as_recorded_by(rerun, (1, 7), older) == older
    assert as_recorded_by(rerun, (1, 8), older) == rerun
