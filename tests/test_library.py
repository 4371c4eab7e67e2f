"""DeepBot as a library: the public API, ``deepbot.crawl(...)`` as a plain iterator, and
``Crawler`` left early. Leaving early must close the browser (no Chromium process
left), end the crawl thread, and leave the store resumable; two crawls in one process
must not see each other's pages.

Chromium processes are found by a marker in their environment: Playwright's driver
inherits this process's environment and passes it to the browser it launches, so a
test sets a fresh marker before starting a crawl and looks for processes holding it.
That finds the processes of that crawl only (not the session's shared browser, nor
another engineer's), even once they are re-parented after their driver exited.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

import deepbot
import nseql
from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.errors import BrowserNotFoundError, ConfigError
from deepbot.frontier import RouteState, SqliteRouteStore
from deepbot.routes import Document
from deepbot.store import SqliteDocumentStore
from fixtures.server import FixtureServer
from fixtures.sites import lab

MARK = "DEEPBOT_TEST_MARK"
QUICK: dict[str, Any] = {"workers": 2, "settle_timeout": 2.0, "exclude": (r"/lab/(slow|never-settles|busy)",)}


def test_public_api() -> None:
    for name in ("Crawler", "CrawlConfig", "CrawlIterator", "crawl", "load_domain", "analyze_form",
                 "replay_document", "Document", "DeepBotError"):
        assert name in deepbot.__all__ and getattr(deepbot, name) is not None, name
    assert callable(deepbot.crawl) and callable(deepbot.load_domain) and callable(deepbot.analyze_form)
    assert {"parse", "run", "dump", "Program"} <= set(nseql.__all__)
    assert nseql.dump(nseql.parse("navigate https://example.org/\n")) == "navigate https://example.org/\n"


# -- helpers ------------------------------------------------------------------------------


def marked_processes(marker: str) -> dict[int, str]:
    """Live processes whose environment holds ``MARK=marker``: pid → command line."""
    needle = f"{MARK}={marker}".encode()
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile, or another user's
            continue
        if state != "Z":  # a zombie has exited; only its parent's bookkeeping is left
            found[int(entry.name)] = command
    return found


def chromium(processes: dict[int, str]) -> dict[int, str]:
    return {pid: cmd for pid, cmd in processes.items() if "chrom" in cmd.lower()}


def eventually(condition: Callable[[], object], seconds: float = 10.0) -> bool:
    """Processes and threads take a moment to exit after being told; poll briefly."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.fixture
def marker(monkeypatch: pytest.MonkeyPatch) -> str:
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARK, value)
    return value


def new_threads(before: set[int | None]) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.ident not in before and t.is_alive()]


def paths(documents: list[Document]) -> set[str]:
    return {urlsplit(d.final_url).path for d in documents}


# -- deepbot.crawl(...) ---------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_breaking_out_stops_the_crawl_and_closes_the_browser(
    site: FixtureServer, tmp_path: Path, marker: str
) -> None:
    threads_before = {t.ident for t in threading.enumerate()}
    store = tmp_path / "lab.sqlite"
    seen: list[Document] = []
    running: dict[int, str] = {}
    for doc in deepbot.crawl([site.url("/lab/")], store=store, depth=3, **QUICK):
        seen.append(doc)
        running = chromium(marked_processes(marker))
        if len(seen) == 2:
            break  # the iterator is dropped here: that alone must stop everything
    assert running, "the crawl's Chromium was not found while it ran (so the check below proves nothing)"
    assert eventually(lambda: not marked_processes(marker)), marked_processes(marker)
    assert eventually(lambda: not new_threads(threads_before)), new_threads(threads_before)

    # Far from done, nothing counted as failed, and the store is resumable.
    with SqliteDocumentStore(store) as documents:
        assert 2 <= documents.count() < len(lab.EXPECTED_PAGES)
    with SqliteRouteStore(store) as frontier:
        counts = frontier.counts()
    assert counts[RouteState.FAILED] == 0
    assert counts[RouteState.QUEUED] + counts[RouteState.LEASED] > 0


@pytest.mark.browser
@pytest.mark.slow
def test_an_exception_in_the_loop_stops_the_crawl(site: FixtureServer, tmp_path: Path,
                                                  marker: str) -> None:
    threads_before = {t.ident for t in threading.enumerate()}
    with pytest.raises(ZeroDivisionError), deepbot.crawl(
        [site.url("/lab/")], store=tmp_path / "lab.sqlite", depth=3, **QUICK
    ) as documents:
        for _ in documents:
            assert documents.running
            1 / 0  # noqa: B018 - the ETL job's bug
    assert not documents.running
    assert eventually(lambda: not marked_processes(marker)), marked_processes(marker)
    assert eventually(lambda: not new_threads(threads_before))
    assert list(documents) == []  # closed: iterating again ends at once


@pytest.mark.browser
@pytest.mark.slow
def test_close_while_the_browser_starts(site: FixtureServer, tmp_path: Path, marker: str) -> None:
    threads_before = {t.ident for t in threading.enumerate()}
    documents = deepbot.crawl([site.url("/lab/")], store=tmp_path / "lab.sqlite", **QUICK)
    documents.close()  # before the first document: waits for the launch, then closes
    assert not documents.running
    assert eventually(lambda: not marked_processes(marker)), marked_processes(marker)
    assert eventually(lambda: not new_threads(threads_before))
    with pytest.raises(StopIteration):
        next(documents)


@pytest.mark.browser
@pytest.mark.slow
def test_crawl_to_the_end_streams_every_stored_document(site: FixtureServer, tmp_path: Path,
                                                        marker: str) -> None:
    store = tmp_path / "js.sqlite"
    documents = deepbot.crawl([site.url("/lab/js/")], store=store, depth=1, include=[r"/lab/js/"],
                              buffer=1, **QUICK)
    streamed = list(documents)
    assert not documents.running  # the end of the iteration closed the browser
    assert not marked_processes(marker)
    assert paths(streamed) == {"/lab/js/"} | {p for p in lab.SCRIPT_ONLY if p.startswith("/lab/js/")}
    assert documents.stats.stored == len(streamed)
    with SqliteDocumentStore(store) as stored:
        assert [d.id for d in stored.iter_documents(html=False)] == [d.id for d in streamed]


def test_invalid_options_fail_before_anything_starts(tmp_path: Path) -> None:
    threads_before = {t.ident for t in threading.enumerate()}
    with pytest.raises(ConfigError, match="depth"):
        deepbot.crawl(["http://127.0.0.1:1/"], store=tmp_path / "s.sqlite", depth=-1)
    with pytest.raises(ConfigError, match="no_such_option"):
        deepbot.crawl(["http://127.0.0.1:1/"], store=tmp_path / "s.sqlite", no_such_option=1)
    with pytest.raises(ConfigError, match="not an http"):
        deepbot.crawl(["ftp://example.org/"], store=tmp_path / "s.sqlite")
    assert not new_threads(threads_before)


def test_config_with_overrides_and_errors_of_the_crawl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       marker: str) -> None:
    # No Chromium to launch: the crawl fails in its thread, and the error reaches the loop.
    monkeypatch.setenv("DEEPBOT_CHROMIUM", str(tmp_path / "no-chromium"))
    base = CrawlConfig(seeds=("http://127.0.0.1:1/",), depth=5, workers=1)
    documents = deepbot.crawl(config=base, store=tmp_path / "s.sqlite", depth=1)
    assert (documents.config.depth, documents.config.workers) == (1, 1)
    assert documents.config.seeds == base.seeds and documents.config.store == tmp_path / "s.sqlite"
    with pytest.raises(BrowserNotFoundError, match="no-chromium"):
        next(documents)
    assert not documents.running
    assert eventually(lambda: not marked_processes(marker)), marked_processes(marker)  # nor its driver
    with pytest.raises(StopIteration):
        next(documents)


@pytest.mark.browser
@pytest.mark.slow
def test_two_crawls_in_one_process_do_not_interfere(site: FixtureServer, tmp_path: Path) -> None:
    js = deepbot.crawl([site.url("/lab/js/")], store=tmp_path / "js.sqlite", depth=1,
                       include=[r"/lab/js/"], **QUICK)
    session = deepbot.crawl([site.url("/lab/session/")], store=tmp_path / "session.sqlite", depth=1,
                            include=[r"/lab/session/"], **QUICK)
    got: dict[str, list[Document]] = {"js": [], "session": []}
    both_running = False
    with js, session:
        pending = {"js": js, "session": session}
        while pending:  # take turns, so both crawls are in flight together
            for name, documents in list(pending.items()):
                both_running |= js.running and session.running
                try:
                    got[name].append(next(documents))
                except StopIteration:
                    del pending[name]
    assert both_running
    assert paths(got["js"]) == {"/lab/js/", "/lab/js/target-a", "/lab/js/target-b", "/lab/js/target-c",
                                "/lab/js/target-d"}
    assert paths(got["session"]) == {"/lab/session/", "/lab/session/secret"}
    for name in got:
        with SqliteDocumentStore(tmp_path / f"{name}.sqlite") as store:
            assert {d.id for d in store.iter_documents(html=False)} == {d.id for d in got[name]}


# -- Crawler, async -------------------------------------------------------------------------


def lab_crawl_config(site: FixtureServer, store: Path, **values: object) -> CrawlConfig:
    return CrawlConfig.model_validate({"seeds": (site.url("/lab/"),), "store": store, "depth": 3,
                                       **QUICK, **values})


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("hold_the_generator", [False, True])
async def test_async_break_exits_cleanly(site: FixtureServer, tmp_path: Path, marker: str,
                                         hold_the_generator: bool) -> None:
    tasks_before = asyncio.all_tasks()
    config = lab_crawl_config(site, tmp_path / "lab.sqlite")
    started = time.monotonic()
    async with Crawler(config) as crawler:
        # Held in a variable, the generator is not finalised at `break`, only when
        # collected: leaving the `async with` must stop its workers all the same.
        documents = crawler.run()
        async for _ in documents:
            assert chromium(marked_processes(marker))
            break
        if not hold_the_generator:
            del documents
    assert time.monotonic() - started < 60
    assert eventually(lambda: not marked_processes(marker)), marked_processes(marker)
    def left() -> set[asyncio.Task[Any]]:
        return asyncio.all_tasks() - tasks_before - {asyncio.current_task()}

    for _ in range(50):  # finalised generators' clean-up runs on the loop: give it its turns
        if not left():
            break
        await asyncio.sleep(0.1)
    assert left() == set()
    with SqliteRouteStore(config.store) as frontier:
        assert frontier.counts()[RouteState.FAILED] == 0  # stopping is not failing


@pytest.mark.browser
@pytest.mark.slow
async def test_two_crawlers_in_one_event_loop(site: FixtureServer, tmp_path: Path) -> None:
    async def crawl(name: str, start: str) -> list[Document]:
        config = lab_crawl_config(site, tmp_path / f"{name}.sqlite", seeds=(site.url(start),),
                                  depth=1, include=(start + ".*",))
        async with Crawler(config) as crawler:
            return [doc async for doc in crawler.run()]

    js, session = await asyncio.gather(crawl("js", "/lab/js/"), crawl("session", "/lab/session/"))
    assert paths(js) == {"/lab/js/", "/lab/js/target-a", "/lab/js/target-b", "/lab/js/target-c",
                         "/lab/js/target-d"}
    assert paths(session) == {"/lab/session/", "/lab/session/secret"}
    # Each store holds its own crawl only.
    with SqliteDocumentStore(tmp_path / "js.sqlite") as store:
        assert store.count() == len(js)
    with SqliteDocumentStore(tmp_path / "session.sqlite") as store:
        assert store.count() == len(session)
