"""The shared linkage attack (policycheck.metrics.linkage.linkage_attack): its columns, its checks, its needs."""

import numpy as np
import pytest

from policycheck.core.errors import EvaluationError
from policycheck.metrics import registry
from policycheck.metrics.base import Knowledge
from tests.metrics.linkage.releases import COPY, ORIGINAL, TYPES, evaluate, make_release, release_of, with_holdout


def test_metrics_need_the_maximum_knowledge_attacker():
    for name in ("linkage_range_narrowing", "linkage_exact_disclosure", "linkage_consistently_misled"):
        spec = registry.get_metric(name)
        assert spec.knowledge == {Knowledge.ORIGINAL, Knowledge.SYNTHETIC}
        assert spec.inputs == {"original", "synthetic"}


def test_the_holdout_attack_is_needed_only_when_the_baseline_may_use_it():
    spec = registry.get_metric("linkage_exact_disclosure")
    release = with_holdout(COPY)
    records = {
        baseline: [n.kwargs["records"] for n in spec.needs(spec.params(baseline=baseline), release)]
        for baseline in ("auto", "chance", "holdout", "none")
    }
    both = ["original", "holdout", "original", "holdout"]
    assert records == {"auto": both, "chance": ["original"] * 2, "holdout": both, "none": ["original"] * 2}


def test_secret_defaults_to_the_only_declared_secret_and_refuses_several():
    assert evaluate("linkage_exact_disclosure", make_release(COPY)).details.secret == "s"
    with pytest.raises(EvaluationError, match="name the one column"):
        evaluate("linkage_exact_disclosure", make_release(COPY), secrets=("s", "c"))


def test_nominal_secret_without_an_order_is_refused():
    with pytest.raises(EvaluationError, match="secret column 'c' is categorical without an order"):
        evaluate("linkage_range_narrowing", make_release(COPY), secrets=("c",))


def test_linking_on_the_secret_is_refused():
    with pytest.raises(EvaluationError, match="includes the secret 's'"):
        evaluate("linkage_exact_disclosure", make_release(COPY), attributes=["a", "s"])


def test_default_attributes_drop_the_secret_from_the_quasi_identifiers():
    result = evaluate("linkage_exact_disclosure", make_release(COPY), qis=("a", "s", "c"))
    assert result.details.attributes == ["a", "c"]


def test_an_order_for_an_unknown_column_is_refused():
    with pytest.raises(EvaluationError, match="column 'nope', which the release does not have"):
        evaluate("linkage_exact_disclosure", make_release(COPY), orders={"nope": ["a"]})


def test_a_secret_missing_everywhere_is_a_clear_error():
    original = ORIGINAL.assign(s=np.nan)
    with pytest.raises(EvaluationError, match="missing in every original record"):
        evaluate("linkage_exact_disclosure", release_of(original, original.copy(), TYPES))


def test_missing_linkage_attributes_and_repeated_attributes_link():
    original = ORIGINAL.assign(a=[1.0, np.nan, 3.0, 4.0])
    release = release_of(original, original.copy(), TYPES)
    result = evaluate("linkage_exact_disclosure", release, attributes=["a", "a"], baseline="none")
    assert result.details.attributes == ["a"]
    assert result.value == 1.0
