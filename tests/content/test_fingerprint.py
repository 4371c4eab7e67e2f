"""Page fingerprints: a clock, a date or a token is no change; a word or a link is."""

from __future__ import annotations

from deepbot.content.fingerprint import page_fingerprint, same_page, stable_text


def test_clocks_dates_and_tokens_are_masked_but_prices_and_counts_are_not() -> None:
    said = stable_text("Updated 14:05:09 pm on 2026-11-27T22:10:00Z (28/11/2026), token a8f9c0d1e2b3a4f5c6d7;"
                       " price 12.50, 3 in stock")
    assert said == "updated _ on _ _ token _ price 12 50 3 in stock"


def test_a_clock_is_no_change_and_a_word_is() -> None:
    before = page_fingerprint("Opening hours. It is now 09:14:02. Closed on Sundays.", ["http://x/a"])
    ticked = page_fingerprint("Opening hours. It is now 17:40:59. Closed on Sundays.", ["http://x/a"])
    edited = page_fingerprint("Opening hours. It is now 17:40:59. Open on Sundays.", ["http://x/a"])
    assert same_page(before, ticked)
    assert not same_page(before, edited)


def test_links_count_as_a_set_with_their_tokens_masked() -> None:
    a = page_fingerprint("Results", ["http://x/r/1", "http://x/r/2?csrf=ab12cd34ef56gh78ij90"])
    b = page_fingerprint("Results", ["http://x/r/2?csrf=zz99cd34ef56gh78ij11", "http://x/r/1", "http://x/r/1"])
    more = page_fingerprint("Results", ["http://x/r/1", "http://x/r/2", "http://x/r/3"])
    assert same_page(a, b)
    assert not same_page(a, more)  # a record added to a result list is a change of the list


def test_a_text_only_fingerprint_compares_the_texts_alone() -> None:
    # A page stored before links were fingerprinted has only its text's digest.
    old = page_fingerprint("Same words here")
    assert same_page(old, page_fingerprint("Same words here", ["http://x/new-link"]))
    assert not same_page(old, page_fingerprint("Other words here", []))
