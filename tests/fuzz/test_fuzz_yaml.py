"""Fuzzed YAML token soup through the parser every policy, manifest and ledger goes through.

The policy fuzz suite found a TypeError deep in ruamel (a mapping used as a
key inside another key); this suite aims at the parser alone, with the YAML
tokens that build such structures (complex keys, anchors, aliases, merge
keys, explicit tags), thousands of documents a second. Every document must
parse or give one located line.
"""

from __future__ import annotations

import pytest
from harness import DEFAULT_EXAMPLES, FUZZ_EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from policycheck.core.errors import InvalidInput
from policycheck.io.yamlio import parse_yaml

TOKENS = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ": ",
    ":",
    "? ",
    "- ",
    "&a ",
    "*a",
    "&b ",
    "*b",
    "<<: ",
    "<<",
    "a",
    "b",
    "1",
    "\n",
    "  ",
    "'",
    '"',
    "#",
    "~",
    "null",
    "---",
    "...",
    "|",
    ">",
    "!a ",
    "!!map ",
    "!!seq ",
    "!!set ",
    "!!omap ",
    "!!pairs ",
    "!!str ",
    "!!int ",
    "!!float ",
    "!!bool ",
    "!!null ",
    "!!timestamp ",
    "!!binary ",
    "!!python/tuple ",
    "0x",
    "0o",
    "1.5",
    ".inf",
    "2024-01-01",
    "%YAML 1.1\n",
]
documents = st.lists(st.sampled_from(TOKENS), max_size=30).map("".join)


def parses_or_one_located_line(text: str) -> None:
    try:
        parse_yaml(text, "p.yaml")
    except InvalidInput as exc:
        for problem in exc.problems:
            assert problem.file == "p.yaml" and "\n" not in str(problem), str(problem)


@settings(max_examples=DEFAULT_EXAMPLES * 10)
@given(text=documents)
def test_yaml_token_soup_parses_or_gives_one_located_line(text):
    parses_or_one_located_line(text)


@pytest.mark.fuzz
@settings(max_examples=FUZZ_EXAMPLES * 10, derandomize=False)
@given(text=documents)
def test_much_yaml_token_soup_parses_or_gives_one_located_line(text):
    parses_or_one_located_line(text)
