"""The digest of the running code that every report records beside the version."""

import hashlib

from policycheck.core.version import folder_sha256


def entry(name: str, content: bytes) -> bytes:
    return name.encode() + b"\0" + hashlib.sha256(content).hexdigest().encode() + b"\n"


def test_the_source_digest_covers_each_file_by_relative_path_and_content_in_path_order(tmp_path):
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "dcr.py").write_bytes(b"x = 1\n")
    (tmp_path / "a.j2").write_bytes(b"{{ r }}\n")
    expected = hashlib.sha256(entry("a.j2", b"{{ r }}\n") + entry("metrics/dcr.py", b"x = 1\n")).hexdigest()
    assert folder_sha256(tmp_path) == expected


def test_the_source_digest_leaves_out_byte_code(tmp_path):
    (tmp_path / "m.py").write_bytes(b"x = 1\n")
    before = folder_sha256(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\x00compiled")
    assert folder_sha256(tmp_path) == before
