"""A crawl that starts logged in: `deepbot login` saves the session, `crawl --session`
starts from it, and `replay` reaches a stored account page again.

The fixture is a library's patron account behind an ASP.NET login (fixtures/sites/patron.py):
every account page redirects to the login without a live ticket, and "Log out" ends
the ticket on the server, so one followed link would log out every later route.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.routes import Document
from fixtures.server import FixtureServer
from fixtures.sites import patron

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LOGIN = """# Log in to the patron account; the card and PIN come from the environment.
navigate {url}
fill "#ctl00_ContentPlaceHolder1_txtCardNumber" "${{PATRON_CARD}}"
fill "#ctl00_ContentPlaceHolder1_txtPIN" "${{PATRON_PIN}}"
click 'role=button[name="Log in"]'
wait url 'Default\\.aspx'
"""


def _deepbot(*args: str, pin: str = patron.PIN) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATRON_CARD": patron.CARD, "PATRON_PIN": pin}
    return subprocess.run([sys.executable, "-m", "deepbot", *args], env=env, capture_output=True, text=True,
                          timeout=120)


async def _crawl(site: FixtureServer, store: Path, session: Path | None) -> list[Document]:
    config = CrawlConfig(seeds=(site.url("/patron/Default.aspx"),), store=store, session=session, workers=2,
                         depth=2, settle_timeout=2.0)
    async with Crawler(config) as crawler:
        return [doc async for doc in crawler.run()]


async def test_log_in_once_then_crawl_and_replay_the_account(tmp_path: Path) -> None:
    program, saved = tmp_path / "login.nseql", tmp_path / "patron-session.json"
    with FixtureServer() as site:
        program.write_text(LOGIN.format(url=site.url("/patron/Login.aspx")))
        login = _deepbot("login", str(program), "--save", str(saved))
        assert login.returncode == 0, login.stderr
        assert "saved:" in login.stdout
        cookies = json.loads(saved.read_text())["cookies"]
        assert [c["name"] for c in cookies] == [".ASPXAUTH"] and cookies[0]["httpOnly"]
        # The PIN is kept nowhere (the ticket, random hex, may hold its digits by chance: CI met one).
        assert patron.PIN not in saved.read_text().replace(cookies[0]["value"], "")

        store = tmp_path / "account.sqlite"
        documents = await _crawl(site, store, saved)
        titles = {doc.final_url.removeprefix(site.base_url): doc.title.split(" - ")[0] for doc in documents}
        assert titles == patron.ACCOUNT  # every account page, none of them the login form
        assert site.hits_for(patron.LOGOUT) == 0  # "Log out" is never followed
        started = {doc.meta.get("start_session") for doc in documents}
        assert len(started) == 1 and None not in started  # each program runs from the saved session

        loans = next(doc for doc in documents if doc.final_url.endswith("Loans.aspx"))
        replayed = _deepbot("replay", loans.id, "--store", str(store))
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        assert "reached the same page" in replayed.stdout

        # The same crawl without the session meets the login form only.
        anonymous = await _crawl(site, tmp_path / "anonymous.sqlite", None)
        reached = {doc.final_url.split("?")[0].removeprefix(site.base_url) for doc in anonymous}
        assert reached == {"/patron/Login.aspx"}


async def test_a_failed_login_saves_nothing(tmp_path: Path) -> None:
    program, saved = tmp_path / "login.nseql", tmp_path / "patron-session.json"
    with FixtureServer() as site:
        program.write_text(LOGIN.format(url=site.url("/patron/Login.aspx")))
        login = _deepbot("login", str(program), "--save", str(saved), "--timeout", "3", pin="0000")
    assert login.returncode == 1
    assert "line 6" in login.stderr and "Default" in login.stderr  # the wait for the account page
    assert not saved.exists()


def test_a_login_program_needs_its_variables(tmp_path: Path) -> None:
    program = tmp_path / "login.nseql"
    program.write_text(LOGIN.format(url="http://127.0.0.1:9/patron/Login.aspx"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PATRON_")}
    login = subprocess.run([sys.executable, "-m", "deepbot", "login", str(program), "--save",
                            str(tmp_path / "s.json")], env=env, capture_output=True, text=True, timeout=60)
    assert login.returncode == 1
    assert "login.nseql:3: environment variable(s) not set: PATRON_CARD" in login.stderr


@pytest.mark.parametrize("shared_session", [False, True], ids=["route-sessions", "shared-session"])
async def test_a_session_that_ends_mid_crawl_waits_for_a_new_login(
        tmp_path: Path, shared_session: bool) -> None:
    program, store = tmp_path / "login.nseql", tmp_path / "account.sqlite"
    # Each ticket shows three account pages (the login lands on one), then the server forgets it.
    with FixtureServer(options={"patron_ticket_pages": 3}) as site:
        program.write_text(LOGIN.format(url=site.url("/patron/Login.aspx")))
        stored: dict[str, str] = {}
        logged_out = []
        for run in ("first", "second"):
            saved = tmp_path / f"{run}.json"
            assert _deepbot("login", str(program), "--save", str(saved)).returncode == 0
            config = CrawlConfig(seeds=(site.url("/patron/Default.aspx"),), store=store, session=saved,
                                 workers=1, depth=2, settle_timeout=2.0, shared_session=shared_session)
            async with Crawler(config) as crawler:
                documents = [doc async for doc in crawler.run()]
                logged_out.append(sum(crawler.stats.logged_out.values()))
                pending = crawler.frontier.pending()
            assert len(documents) == 2  # what one ticket shows after the login
            stored.update({doc.final_url.removeprefix(site.base_url): doc.title.split(" - ")[0]
                           for doc in documents})
            if run == "first":
                # The login form came back on the history: nothing stored of it, and the
                # route stays queued for the next login (its page 2 is linked from it).
                assert logged_out[0] == 1 and pending == 1
        # The second login went to the routes queued in the first run: the account is complete.
        assert stored == patron.ACCOUNT
        assert logged_out[1] == 0
