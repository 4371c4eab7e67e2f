"""Human-verification tests met in a crawl, in real Chromium.

A relevant form a CAPTCHA guards is reported and not queried (every submission would
be refused); one with an invisible widget (a badge, a sitekey on its button) is. A page
that is only a bot check (Cloudflare's, a shop's own) pauses the host like a 429, is
retried, and is recorded as failed if the check stays: never stored as the page.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.crawl.runner import summary
from deepbot.routes import Via
from fixtures.server import FixtureServer
from tests.crawl.conftest import crawl_books_page, lab_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RECAPTCHA = "/forms/books_captcha_recaptcha.html"
ASPNET = "/forms/books_captcha_aspnet.html"
INVISIBLE = "/forms/books_invisible_recaptcha.html"


async def test_a_form_a_captcha_guards_is_reported_not_queried(tmp_path: Path) -> None:
    documents, forms, failures = await crawl_books_page((RECAPTCHA, ASPNET, INVISIBLE), r"/books/results",
                                                        tmp_path / "store.sqlite")
    found = {(urlsplit(f.url).path, f.form_index): f for f in forms}
    assert set(found) == {(RECAPTCHA, 1), (ASPNET, 0), (INVISIBLE, 0)}
    assert (found[RECAPTCHA, 1].queries, found[RECAPTCHA, 1].challenge) == (0, "reCAPTCHA")
    assert found[ASPNET, 0].queries == 0
    assert found[ASPNET, 0].challenge == "a CAPTCHA image, a CAPTCHA field ('Enter the code shown')"
    assert (found[INVISIBLE, 0].queries, found[INVISIBLE, 0].challenge) == (3, None)
    assert not failures
    submitted = [d for d in documents if d.via is Via.FORM]
    assert len(submitted) == 3 and {urlsplit(d.form_url or "").path for d in submitted} == {INVISIBLE}
    assert all(urlsplit(d.final_url).path == "/books/results" for d in submitted)
    # A search page a CAPTCHA guards is a page of the site, not a bot check in front of it.
    assert {RECAPTCHA, ASPNET} <= {urlsplit(d.final_url).path for d in documents}


async def test_a_form_whose_submission_shows_a_captcha_is_given_up_at_once(tmp_path: Path) -> None:
    # An invisible reCAPTCHA that trusts nobody: the form looks unguarded, so it is queried,
    # and its first submission brings up the image challenge instead of the results.
    page = "/forms/books_invisible_recaptcha_challenge.html"
    with FixtureServer() as site:
        config = CrawlConfig(seeds=(site.url(page),), domains=(Path("domains/books.yaml"),),
                             include=("^" + re.escape(site.url(page)) + "$", "/books/results"),
                             store=tmp_path / "store.sqlite", workers=2, depth=1, settle_timeout=2.0)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            failures, retried = crawler.frontier.failures(), crawler.stats.retried
            (form,) = crawler.forms.found
        visits = site.hits_for(page)
    assert form.queries == 3 and form.challenge is None  # nothing showed before a submission
    assert [urlsplit(d.url).path for d in documents] == [page]  # no results, and no challenge stored
    ((reason, failed),) = failures.items()
    assert reason.startswith("CaptchaShown: reCAPTCHA showed its test when the form was submitted (click ")
    assert failed == 3
    # Neither retried nor tried again by its other queries' routes once one had met it:
    # at most one more per worker in flight at that moment.
    assert retried == 0 and visits <= 1 + config.workers
    assert site.hits_for("/vendor/recaptcha/api2/bframe.html") == visits - 1


async def test_a_bot_check_pauses_the_host_and_is_never_stored(lab_site: FixtureServer,
                                                               tmp_path: Path) -> None:
    once, always = lab_site.url("/lab/botcheck/once"), lab_site.url("/lab/botcheck/always")
    config = lab_config(lab_site, tmp_path / "store.sqlite", seeds=(once, always), depth=0)
    async with Crawler(config) as crawler:
        crawler.politeness.backoff = 0.2  # seconds, doubling: the default 5 s is for real sites
        documents = [doc async for doc in crawler.run()]
        failures = crawler.frontier.failures()
        said = summary(crawler.stats, crawler.frontier.counts(), "store.sqlite", forms=crawler.forms.counts)
    # Cloudflare's check (a 403) stood in front of the page once; the retry got the page.
    assert [(urlsplit(d.url).path, d.title) for d in documents] == [("/lab/botcheck/once", "Opening hours")]
    assert lab_site.hits_for("/lab/botcheck/once") == 2
    # The shop's own check (a 200) never went: retried, then recorded as failed.
    assert lab_site.hits_for("/lab/botcheck/always") == config.max_attempts
    assert failures == {"Refused: bot check: a CAPTCHA image, 'Enter the characters you see'": 1}
    assert crawler.stats.page_work["bot checks met"] == 1 + config.max_attempts
    assert f"Bot checks met: ×{1 + config.max_attempts}" in said
    assert "Verify you are human" not in documents[0].text


async def test_a_bot_check_in_the_sites_own_layout_is_one_too(lab_site: FixtureServer,
                                                              tmp_path: Path) -> None:
    # Its header has a search box and its footer more text than a bare check page: the
    # widget, alone in the page's own content, says what it is.
    branded = lab_site.url("/lab/botcheck/branded")
    config = lab_config(lab_site, tmp_path / "store.sqlite", seeds=(branded,), depth=0)
    async with Crawler(config) as crawler:
        crawler.politeness.backoff = 0.2
        documents = [doc async for doc in crawler.run()]
        met = crawler.stats.page_work["bot checks met"]
    assert [(urlsplit(d.url).path, d.title) for d in documents] == [("/lab/botcheck/branded", "Gift cards")]
    assert lab_site.hits_for("/lab/botcheck/branded") == 2 and met == 1


def test_the_summary_says_what_forms_were_left_alone() -> None:
    from deepbot.crawl.stats import CrawlStats

    forms = Counter({"forms analysed": 4, "relevant forms": 1, "query routes": 3,
                     "relevant forms behind a CAPTCHA": 2})
    said = summary(CrawlStats(), {}, "store.sqlite", forms=forms)
    assert ("Forms: 4 analysed, 1 relevant and queried, 3 query routes, "
            "2 relevant but behind a CAPTCHA (not queried)") in said
    assert "Forms:" not in summary(CrawlStats(), {}, "store.sqlite", forms=Counter())


async def test_a_host_that_refuses_every_visit_is_left_for_a_later_run(lab_site: FixtureServer,
                                                                       tmp_path: Path) -> None:
    """After ``give_up_after`` refusals in a row (8 by default) the crawl visits the host no
    more, ends by itself once nothing else is left, and leaves that host's routes queued:
    a rerun tries them again."""
    port = lab_site.port
    refusing = tuple(f"http://localhost:{port}/lab/botcheck/always?n={n}" for n in range(6))
    seeds = (*refusing, lab_site.url("/lab/js/target-a"))
    assert CrawlConfig.model_fields["give_up_after"].default == 8
    config = lab_config(lab_site, tmp_path / "store.sqlite", seeds=seeds, depth=0, give_up_after=4)
    hits = []
    for _run in range(2):
        async with Crawler(config) as crawler:
            crawler.politeness.backoff = 0.05
            documents = [doc async for doc in crawler.run()]
            counts, failures = crawler.frontier.counts(), crawler.frontier.failures()
            pending = crawler.frontier.pending()
            said = summary(crawler.stats, counts, "store.sqlite")
            parked = crawler.stats.parked[f"localhost:{port}"]
        hits.append(lab_site.hits_for("/lab/botcheck/always"))
        assert hits[-1] - sum(hits[:-1]) in (4, 5)
        assert parked >= 1 and parked + sum(failures.values()) == 6
        assert pending == parked  # left queued, not failed
        assert f"Stopped visiting hosts that refused every visit: localhost:{port} ({parked} routes)" in said
    # The other host's page was crawled as usual, once.
    assert lab_site.hits_for("/lab/js/target-a") == 1 and hits[1] > hits[0]
    assert all("/lab/botcheck" not in d.url for d in documents)
