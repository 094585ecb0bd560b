"""A change is tentative where the sentence that states it is, not for a hypothetical elsewhere in the note."""

from __future__ import annotations

import pytest

from kgmem.derived.change_cues import cues


def test_a_hypothetical_in_another_sentence_leaves_a_stated_change_firm() -> None:
    text = "LOI deadline moved again, now March 22. Dana says if we've already submitted there's no need to redo."
    assert cues(text).switch and cues(text).tentative == 0


@pytest.mark.parametrize(
    "text",
    [
        "If we switch to Fisher, the price drops.",
        "Thinking about moving to Lisbon next year.",
        "Maybe I'll quit the choir. Moved my practice to Thursdays.",  # a change sentence that is itself a guess
        "Would be nice to have a dog someday.",  # no change stated: the whole note is read
    ],
)
def test_a_change_said_as_a_hypothetical_is_tentative(text: str) -> None:
    assert cues(text).tentative >= 1
