"""A crawl logged in to a single-page app, whose session is a token in localStorage and
whose sign-in form, when the session ends, is drawn in place of the page: no redirect
says so (fixtures/sites/reader.py). The crawl must see it all the same, by the login's
token the page dropped, and neither store the sign-in form as the account page nor go
on with a session the site has ended.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.routes import Document
from fixtures.server import FixtureServer
from fixtures.sites import reader

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LOGIN = """# Sign in to the reader app; the address and password come from the environment.
navigate {url}
fill "#email" "${{READER_EMAIL}}"
fill "#password" "${{READER_PASSWORD}}"
click 'role=button[name="Sign in"]'
wait url 'reader/loans'
"""


def _login(site: FixtureServer, program: Path, saved: Path) -> None:
    program.write_text(LOGIN.format(url=site.url("/reader/login")))
    env = {**os.environ, "READER_EMAIL": reader.EMAIL, "READER_PASSWORD": reader.PASSWORD}
    done = subprocess.run([sys.executable, "-m", "deepbot", "login", str(program), "--save", str(saved)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def _heading(doc: Document) -> str:
    found = re.search(r"<h1>(.*?)</h1>", doc.html)
    return found.group(1) if found else ""


def _headings(site: FixtureServer, documents: list[Document]) -> dict[str, str]:
    return {doc.final_url.removeprefix(site.base_url): _heading(doc) for doc in documents}


async def _crawl(site: FixtureServer, store: Path, session: Path | None) -> tuple[list[Document], int, int]:
    config = CrawlConfig(seeds=(site.url("/reader/loans"),), store=store, session=session, workers=1,
                         depth=2, settle_timeout=2.0)
    async with Crawler(config) as crawler:
        documents = [doc async for doc in crawler.run()]
        return documents, sum(crawler.stats.logged_out.values()), crawler.frontier.pending()


async def test_a_crawl_signed_in_to_an_app_stores_every_account_page(tmp_path: Path) -> None:
    program, saved = tmp_path / "login.nseql", tmp_path / "reader.json"
    with FixtureServer() as site:
        _login(site, program, saved)
        origins = json.loads(saved.read_text())["origins"]
        assert [item["name"] for o in origins for item in o["localStorage"]] == [reader.TOKEN_KEY]
        documents, logged_out, _ = await _crawl(site, tmp_path / "account.sqlite", saved)
        assert site.hits_for("/reader/logout") == 0  # "Sign out" is never followed
        # The same crawl without the session: the app draws its sign-in form on each page,
        # which is then what the page is (the crawl never was signed in).
        anonymous, _, _ = await _crawl(site, tmp_path / "anonymous.sqlite", None)
    assert _headings(site, documents) == {path: heading for path, heading in reader.ACCOUNT.items()}
    assert logged_out == 0
    assert {_heading(doc) for doc in anonymous} == {"Sign in to Riverside Reader"}


async def test_a_session_the_app_ends_mid_crawl_is_seen_without_a_redirect(tmp_path: Path) -> None:
    program, store = tmp_path / "login.nseql", tmp_path / "account.sqlite"
    # A token answers three API calls (the sign-in lands on the loans: one), then the
    # server forgets it; the app drops it and draws the sign-in form where the page was.
    with FixtureServer(options={"reader_token_calls": 3}) as site:
        stored: dict[str, str] = {}
        for run in ("first", "second"):
            saved = tmp_path / f"{run}.json"
            _login(site, program, saved)
            documents, logged_out, pending = await _crawl(site, store, saved)
            stored.update(_headings(site, documents))
            if run == "first":
                # Loans and holds, then the history showed the sign-in form in place: not
                # stored, and its route waits for the next login.
                assert len(documents) == 2 and logged_out == 1 and pending == 1
            else:
                assert len(documents) == 1 and logged_out == 0 and pending == 0
    assert stored == reader.ACCOUNT  # and no page of it is the sign-in form
