"""Which files a synthesizer command names: those the check hashes and verify re-hashes before running it."""

from policycheck.engine.commands import command_files


def test_a_relative_argument_naming_a_file_in_the_command_s_folder_is_one_of_its_files(tmp_path):
    (tmp_path / "synth.py").write_text("")
    found = command_files("python3 synth.py --input {input} --output {output}", tmp_path)
    assert found == [("synth.py", tmp_path / "synth.py")]


def test_the_value_of_an_option_naming_a_file_is_one_of_its_files(tmp_path):
    (tmp_path / "conf.yaml").write_text("")
    found = command_files("synth --config=conf.yaml {output}", tmp_path)
    assert found == [("conf.yaml", tmp_path / "conf.yaml")]


def test_absolute_paths_placeholders_and_missing_files_are_not_its_files(tmp_path):
    (tmp_path / "synth.py").write_text("")
    found = command_files(f"{tmp_path / 'synth.py'} absent.py {{output}} {{input}}", tmp_path)
    assert found == []
