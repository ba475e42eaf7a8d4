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


def test_the_modules_a_named_script_imports_are_hashed_after_the_named_files(tmp_path, monkeypatch):
    import hashlib
    import sys
    from types import SimpleNamespace

    from policycheck.engine import commands

    (tmp_path / "synth.py").write_text("import helpers\nfrom pkg import core\n")
    (tmp_path / "helpers.py").write_text("X = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "core.py").write_text("Y = 2\n")
    command = f"{sys.executable} synth.py helpers.py {{output}}"  # helpers.py named too: hashed once, as named
    monkeypatch.setattr(commands, "commands_to_run", lambda plan, release: [commands.CommandUse("g", "s", command)])
    plan = SimpleNamespace(loaded=SimpleNamespace(path=tmp_path / "p.yaml"))

    def sha(name):
        return hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()

    assert commands.hash_command_files(plan, None) == [  # type: ignore[arg-type]
        {"file": "synth.py", "sha256": sha("synth.py")},
        {"file": "helpers.py", "sha256": sha("helpers.py")},
        {"file": "pkg/__init__.py", "sha256": sha("pkg/__init__.py"), "imported_by": "synth.py"},
        {"file": "pkg/core.py", "sha256": sha("pkg/core.py"), "imported_by": "synth.py"},
    ]


def test_the_module_a_command_runs_with_dash_m_is_read_as_python_reads_its_options():
    from policycheck.engine.commands import python_module

    assert python_module("python3 -m synth.main --input {input}") == "synth.main"
    assert python_module("/usr/bin/python3.11 -u -W error -X dev -m synth {output}") == "synth"
    assert python_module("python -um synth") == "synth"  # joined flags
    assert python_module("python -msynth") == "synth"  # the value joined to -m
    assert python_module("python synth.py -m other") is None  # the script's own option
    assert python_module("python -c 'import synth' -m other") is None
    assert python_module("Rscript -m synth") is None  # not a Python interpreter
    assert python_module("python -m {input}") is None  # a placeholder: the run's own file


def test_the_files_of_a_module_a_command_runs_with_dash_m_are_hashed_with_their_imports(tmp_path, monkeypatch):
    import hashlib
    from types import SimpleNamespace

    from policycheck.engine import commands

    (tmp_path / "synth").mkdir()
    (tmp_path / "synth" / "__init__.py").write_text("")
    (tmp_path / "synth" / "main.py").write_text("import helpers\nfrom . import model\n")
    (tmp_path / "synth" / "model.py").write_text("")
    (tmp_path / "helpers.py").write_text("X = 1\n")
    command = "python3 -m synth.main --input {input} --output {output}"
    monkeypatch.setattr(commands, "commands_to_run", lambda plan, release: [commands.CommandUse("g", "s", command)])
    plan = SimpleNamespace(loaded=SimpleNamespace(path=tmp_path / "p.yaml"))

    def sha(name):
        return hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()

    by = {"module": "synth.main", "imported_by": "synth/main.py"}
    assert commands.hash_command_files(plan, None) == [  # type: ignore[arg-type]
        {"file": "synth/__init__.py", "sha256": sha("synth/__init__.py"), "module": "synth.main"},
        {"file": "synth/main.py", "sha256": sha("synth/main.py"), "module": "synth.main"},
        {"file": "helpers.py", "sha256": sha("helpers.py"), **by},
        {"file": "synth/model.py", "sha256": sha("synth/model.py"), **by},
    ]


def test_a_module_of_the_command_that_imports_by_a_computed_name_is_named_in_a_finding(tmp_path, monkeypatch):
    import sys
    from types import SimpleNamespace

    from policycheck.engine import commands

    (tmp_path / "synth.py").write_text("import sys\nimport helpers\nsys.path.append('lib')\n")
    (tmp_path / "helpers.py").write_text("import importlib\n\nfit = importlib.import_module(NAME).fit\n")
    command = f"{sys.executable} synth.py {{output}}"
    monkeypatch.setattr(commands, "commands_to_run", lambda plan, release: [commands.CommandUse("g", "s", command)])
    plan = SimpleNamespace(loaded=SimpleNamespace(path=tmp_path / "p.yaml"))
    assert commands.run_time_import_finding(plan, None) == (  # type: ignore[arg-type]
        "synthesizer command: synth.py:3 (sys.path.append) and helpers.py:3 (importlib.import_module) import by "
        "a name or from a folder set when the command runs: the files reached so are not among the hashed "
        "synthesizer files, and verify cannot tell whether they changed; name those files in the command, or "
        "import them by name from the script's folder"
    )
    (tmp_path / "synth.py").write_text("import helpers\n")
    (tmp_path / "helpers.py").write_text("X = 1\n")
    assert commands.run_time_import_finding(plan, None) is None  # type: ignore[arg-type]
