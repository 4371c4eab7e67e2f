"""Forms read by domain files written blind, from the docs alone (``bench/blind_forms/a``).

Such a file may give two attributes one word ("search" for a search's box and for its
button), and names a purpose in its writer's words. The analyzer must read common forms
with it all the same: ties between equally good readings are settled by what each
attribute is (``match.TIE``), the one box takes what the form's words say a query fills,
and the caption of a form's one box stays the box's."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures.server import FixtureServer
from tests.forms.truthpage import check_page, domains_in


@pytest.mark.browser
async def test_common_forms_are_read_by_domain_files_written_blind(site: FixtureServer, browser: Any) -> None:
    await check_page(site, browser, "blind", domains_in("bench/blind_forms/a/domains"))


@pytest.mark.browser
async def test_aliases_written_as_whole_phrases(site: FixtureServer, browser: Any) -> None:
    # bench/blind_forms/g says "Search the forum" and "Search products…": a forum's jump box
    # and a product's basket must not read as a search, nor a newsletter beside "new products".
    # Its "Password reminder" reads the Italian "Ricorda password" ("reminder" is "remind").
    await check_page(site, browser, "phrases", domains_in("bench/blind_forms/g/domains"))


@pytest.mark.browser
async def test_sign_ups_that_a_login_file_explains_too(site: FixtureServer, browser: Any) -> None:
    # bench/blind_forms/k's login file has an e-mail attribute and a lower µ than its sign-up
    # file: a sign-up's boxes are all a login's, and only "Sign Up" or "Register" is not.
    # One also asks for a card's security code, a box that hides what is typed: the box that
    # repeats the password is the one after it, not the last such box.
    await check_page(site, browser, "signups", domains_in("bench/blind_forms/k/domains"))


@pytest.mark.browser
async def test_search_boxes_read_by_a_file_with_no_queries(site: FixtureServer, browser: Any) -> None:
    # bench/blind_forms/l has no queries, and its category says "search in": a box named `s`
    # reads "search" as both. The box a person types in takes the query, the list the category.
    await check_page(site, browser, "noqueries", domains_in("bench/blind_forms/l/domains"))
