"""`select SEL like "text"`: which option reads most like the text (pure)."""

from __future__ import annotations

import pytest

from nseql.options import LIKE, closest_option, likeness

TOYOTA = [("", "Any model", False), ("aygo-x", "Aygo X", False), ("corolla-cross", "Corolla Cross", False),
          ("corolla", "Corolla", False), ("yaris", "Yaris", False)]


@pytest.mark.parametrize(("text", "value"), [
    ("corolla", "corolla"),  # the same words beat a label that holds them and more
    ("COROLLA ", "corolla"),
    ("Corolla Cross", "corolla-cross"),
    ("yaris", "yaris"),
    ("aygo x", "aygo-x"),
    ("c-hr", None),  # nothing like it
    ("golf", None),
])
def test_the_option_most_like_the_text(text: str, value: str | None) -> None:
    assert closest_option(text, TOYOTA) == value


def test_a_label_renamed_still_reads_alike_and_a_disabled_option_is_never_chosen() -> None:
    assert closest_option("paperback", [("pb", "Paperback (PB)", False), ("hc", "Hardcover", False)]) == "pb"
    assert closest_option("paperback", [("pb", "Paperback", True)]) is None
    assert closest_option("pb", [("pb", "Paperback", False)]) == "pb"  # by its value


def test_likeness_bounds() -> None:
    assert likeness("Golf", "golf") == 1.0
    assert likeness("", "golf") == 0.0 and likeness("golf", "—") == 0.0
    assert likeness("golf", "Golf Estate") < 1.0 and likeness("golf", "Polo") < LIKE
