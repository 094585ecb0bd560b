"""The shipped models' one formula (kgmem.logit): the confidence and the supersession pair model are both it."""

from __future__ import annotations

import math

import pytest

from kgmem.derived import supersession
from kgmem.logit import Logit, logit, sigmoid
from kgmem.query import confidence


def test_probability_is_the_sigmoid_of_the_standardised_dot_product():
    m = Logit(("a", "b"), (1.0, 0.0), (2.0, 0.0), (0.5, -1.0), 0.25, 0.5, "sha256:x", "test")
    z = 0.25 + 0.5 * (3.0 - 1.0) / 2.0 + -1.0 * (2.0 - 0.0) / 1.0  # a scale of 0 counts as 1
    assert m.log_odds({"a": 3.0, "b": 2.0}) == pytest.approx(z)
    assert m.probability({"a": 3.0, "b": 2.0}) == pytest.approx(1 / (1 + math.exp(-z)))
    assert m.probability({}) == pytest.approx(sigmoid(0.25 + 0.5 * (0.0 - 1.0) / 2.0))  # missing features are 0
    assert sigmoid(1e9) == 1.0 and sigmoid(-1e9) < 1e-25 and logit(0.5) == 0.0


@pytest.mark.parametrize("module", [confidence, supersession])
def test_each_shipped_model_is_a_logit_that_reads_back_what_it_writes(module):
    model = module.shipped()
    assert isinstance(model, Logit)
    again = type(model).from_dict(model.to_dict())
    assert again == model
    values = dict(zip(model.features, [0.3 * (i + 1) for i in range(len(model.features))]))
    assert again.probability(values) == pytest.approx(sigmoid(model.log_odds(values)))
