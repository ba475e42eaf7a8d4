"""policy/source.py: how ``extends`` names the policies it merges, and the lines that refuse a bad one."""

import pytest
from conftest import TOY_POLICY

from policycheck.core.errors import EXIT_INVALID, InvalidInput
from policycheck.policy.source import load_source


def refusal(path):
    with pytest.raises(InvalidInput) as exc:
        load_source(path)
    return exc.value.exit_code, [str(p) for p in exc.value.problems]


def test_extends_naming_a_folder_says_it_is_a_folder_not_a_policy_file(write):
    policy = write("p.yaml", "extends: .\n" + TOY_POLICY)
    assert refusal(policy) == (EXIT_INVALID, ["p.yaml:1:1: extended policy '.' is a directory, not a policy file"])


def test_extends_naming_a_missing_file_still_says_not_found(write):
    policy = write("p.yaml", "extends: [base.yaml]\n" + TOY_POLICY)
    assert refusal(policy) == (EXIT_INVALID, ["p.yaml:1:11: extended policy 'base.yaml' not found"])
