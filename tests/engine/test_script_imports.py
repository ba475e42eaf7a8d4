"""The modules a synthesizer script imports from its folder, read from its source (never run)."""

import pytest

from policycheck.engine.script_imports import local_imports


@pytest.fixture
def tmp_path(tmp_path):
    return tmp_path.resolve()  # local_imports gives resolved paths (macOS's /tmp is a link)


def write(folder, files):
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_sibling_module_a_package_and_its_submodules_are_the_scripts_imports(tmp_path):
    write(
        tmp_path,
        {
            "synth.py": "import json\nimport helpers\nfrom pkg import core\nfrom pkg.util import fit\n",
            "helpers.py": "",
            "pkg/__init__.py": "",
            "pkg/core.py": "",
            "pkg/util.py": "",
            "pkg/unused.py": "",
        },
    )
    assert local_imports(tmp_path / "synth.py") == [
        tmp_path / "helpers.py",
        tmp_path / "pkg/__init__.py",
        tmp_path / "pkg/core.py",
        tmp_path / "pkg/util.py",
    ]


def test_imports_inside_functions_and_try_blocks_are_followed(tmp_path):
    write(tmp_path, {"synth.py": "def main():\n    try:\n        import late\n    except ImportError:\n        pass\n"})
    write(tmp_path, {"late.py": ""})
    assert local_imports(tmp_path / "synth.py") == [tmp_path / "late.py"]


def test_a_modules_own_relative_and_absolute_imports_are_followed_once(tmp_path):
    write(
        tmp_path,
        {
            "synth.py": "import pkg.model\n",
            "pkg/__init__.py": "from .model import train\n",
            "pkg/model.py": "from . import shared\nimport synth\n",  # a cycle back to the script
            "pkg/shared.py": "from ..outside import x\n",  # above the script's folder: not followed
        },
    )
    assert local_imports(tmp_path / "synth.py") == [
        tmp_path / "pkg/__init__.py",
        tmp_path / "pkg/model.py",
        tmp_path / "pkg/shared.py",
    ]


def test_an_attribute_imported_from_a_module_is_not_a_file(tmp_path):
    write(tmp_path, {"synth.py": "from helpers import fit\n", "helpers.py": "", "fit.py": ""})
    assert local_imports(tmp_path / "synth.py") == [tmp_path / "helpers.py"]


def test_the_script_is_read_not_run(tmp_path):
    planted = tmp_path / "PWNED"
    write(tmp_path, {"synth.py": f"open({str(planted)!r}, 'w').close()\nimport helpers\n", "helpers.py": ""})
    assert local_imports(tmp_path / "synth.py") == [tmp_path / "helpers.py"]
    assert not planted.exists()


def test_a_module_that_does_not_parse_is_hashed_but_not_followed(tmp_path):
    write(tmp_path, {"synth.py": "import legacy\n", "legacy.py": "print 'python 2'\nimport other\n", "other.py": ""})
    assert local_imports(tmp_path / "synth.py") == [tmp_path / "legacy.py"]


def test_a_module_that_is_a_link_keeps_its_own_name(tmp_path):
    outside = tmp_path / "elsewhere"
    write(outside, {"real_helpers.py": ""})
    project = tmp_path / "project"
    write(project, {"synth.py": "import helpers\n"})
    (project / "helpers.py").symlink_to(outside / "real_helpers.py")
    assert local_imports(project / "synth.py") == [project / "helpers.py"]


def test_a_module_run_with_dash_m_brings_its_packages_init_files_and_its_own_file(tmp_path):
    from policycheck.engine.script_imports import module_files

    write(tmp_path, {"synth/__init__.py": "", "synth/main.py": "", "synth/other.py": ""})
    assert module_files("synth.main", tmp_path) == [tmp_path / "synth/__init__.py", tmp_path / "synth/main.py"]


def test_a_package_run_with_dash_m_brings_its_main_file(tmp_path):
    from policycheck.engine.script_imports import module_files

    write(tmp_path, {"synth/__init__.py": "", "synth/__main__.py": ""})
    assert module_files("synth", tmp_path) == [tmp_path / "synth/__init__.py", tmp_path / "synth/__main__.py"]


def test_a_module_not_under_the_folder_brings_no_file(tmp_path):
    from policycheck.engine.script_imports import module_files

    write(tmp_path, {"synth/__init__.py": ""})  # synth.main is installed elsewhere, or nowhere
    assert module_files("synth.main", tmp_path) == []
    assert module_files("json", tmp_path) == []


def test_a_module_run_with_dash_m_imports_from_the_folder_the_command_runs_in(tmp_path):
    # python -m puts the working folder first on sys.path, not the module's own folder.
    write(tmp_path, {"synth/main.py": "import helpers\nimport sibling\n", "helpers.py": "", "synth/sibling.py": ""})
    assert local_imports(tmp_path / "synth/main.py", base=tmp_path) == [tmp_path / "helpers.py"]


def test_imports_by_a_computed_name_and_changes_to_sys_path_are_found_at_their_lines(tmp_path):
    from policycheck.engine.script_imports import run_time_imports

    script = tmp_path / "synth.py"
    script.write_text(
        "import importlib, runpy, sys\n"  # 1
        "from importlib import import_module\n"  # 2
        "sys.path.insert(0, 'lib')\n"  # 3
        "sys.path += ['more']\n"  # 4
        "plugin = importlib.import_module('plugins.' + name)\n"  # 5
        "other = import_module(name)\n"  # 6
        "def load():\n"  # 7
        "    return __import__(name), runpy.run_path('extra.py')\n"  # 8
        "exec(open('setup_code.py').read())\n"  # 9
        "self.path.append('not sys.path'); app.exec()\n"  # 10: another object's path, a Qt app's exec
        "import helpers\n"  # 11: by name, followed by local_imports
    )
    assert run_time_imports(script) == [
        (3, "sys.path.insert"),
        (4, "sys.path ="),
        (5, "importlib.import_module"),
        (6, "import_module"),
        (8, "__import__"),
        (8, "runpy.run_path"),
        (9, "exec"),
    ]


def test_a_script_that_imports_only_by_name_has_no_run_time_imports(tmp_path):
    from policycheck.engine.script_imports import run_time_imports

    (tmp_path / "synth.py").write_text("import sys\nimport helpers\nfrom pkg import core\nprint(sys.path)\n")
    assert run_time_imports(tmp_path / "synth.py") == []


def test_a_module_imported_by_a_name_written_out_is_followed_not_reported(tmp_path):
    from policycheck.engine.script_imports import run_time_imports

    write(tmp_path, {"helpers.py": "", "pkg/__init__.py": "", "pkg/model.py": ""})
    script = tmp_path / "synth.py"
    script.write_text(
        "import importlib\n"
        "h = importlib.import_module('helpers')\n"  # written out: followed as `import helpers`
        "m = __import__('pkg.model')\n"  # written out: followed
        "r = importlib.import_module('.model', package='pkg')\n"  # relative to a package: reported
    )
    assert local_imports(script) == [tmp_path / "helpers.py", tmp_path / "pkg/__init__.py", tmp_path / "pkg/model.py"]
    assert run_time_imports(script) == [(4, "importlib.import_module")]
