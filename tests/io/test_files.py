"""Reading inputs (policycheck/io/files.py): JSON refused with one complete, located line."""

import pytest

from policycheck.core.errors import InvalidInput
from policycheck.io.files import parse_json


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{\n  "verdict": "pa', "r.json:2:14: not valid JSON: unterminated string starting here"),
        ('{"verdict": "p\x01ass"}', "r.json:1:15: not valid JSON: invalid control character here"),
    ],
)
def test_a_json_error_at_a_position_is_worded_completely(text, said):
    with pytest.raises(InvalidInput) as caught:
        parse_json(text, "r.json")
    assert str(caught.value.problems[0]) == said
