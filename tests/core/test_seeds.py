import zlib

import numpy as np

from policycheck.core.seeds import generator, seed_sequence
from policycheck.metrics.base import AttackerView, EvaluationContext


def test_a_choice_is_seeded_by_the_run_seed_and_the_crc32_of_each_word_of_its_key():
    expected = np.random.SeedSequence(entropy=7, spawn_key=(zlib.crc32(b"linkage"), zlib.crc32(b"3")))
    assert seed_sequence(7, "linkage", 3).generate_state(4).tolist() == expected.generate_state(4).tolist()


def test_an_evaluator_draws_from_the_same_stream_as_the_core_derivation():
    ctx = EvaluationContext(release=None, attacker=AttackerView("maximum-knowledge", (), ()), seed=11)
    assert (
        ctx.rng("linkage", "presample", 0).random(3).tolist()
        == generator(11, "linkage", "presample", 0).random(3).tolist()
    )
