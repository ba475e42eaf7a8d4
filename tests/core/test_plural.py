"""core/plural.py: a count and its noun agree (1 rule, 2 rules), never ``rule(s)``."""

from policycheck.core.plural import count_of, noun


def test_one_takes_the_singular_and_every_other_count_the_plural():
    assert [count_of(n, "rule") for n in (0, 1, 2)] == ["0 rules", "1 rule", "2 rules"]


def test_an_irregular_plural_or_a_verb_is_given_whole():
    assert [noun(n, "is", "are") for n in (1, 3)] == ["is", "are"]
