"""Real apps as the yardstick: ``python bench/realapps.py [--app NAME] [--json]``.

Starts real, unmodified open-source web apps from PyPI on 127.0.0.1, each over data it
generates (deterministic: the same seed, the same records), crawls each with ``deepbot
crawl`` from the app's home page with DeepBot's defaults and a domain definition written
as a user would write it (``bench/realapps/*.yaml``), and scores what the crawl stored
against the app's own data.

The apps are not DeepBot's dependencies, nor this module's at import: install them first,

    pip install -r bench/requirements-realapps.txt   # datasette, sphinx, roundup, flask-admin

and an app whose package is missing is reported with that line, not run.

Per app, what a *record* is and what each query should return:

- ``datasette``: a library catalogue of 3,000 books (title, author, year, genre) in SQLite,
  with a full-text index over title and author. A record is a row page
  ``/library/books/ID``. Truth: ``title``/``author`` queries match the rows whose title or
  author has that word, ``genre`` the rows of that genre, ``keywords`` the rows whose title
  or author has it (what the full-text search returns).
- ``sphinx``: the manual of an invented product, 150 pages of reStructuredText in five
  chapters, built to HTML by Sphinx and served as static files; its search page runs in
  JavaScript (``search.html?q=``). A record is a content page; truth: the pages whose text
  has the query's word (Sphinx's own search finds exactly those: each word is used in one
  form only, so stemming merges nothing).
- ``roundup``: an issue tracker (the ``classic`` template, SQLite) with 400 issues. A record
  is an ``/issueN`` page; truth: the issues whose title has the query's word.
- ``flask-admin``: the same catalogue as Datasette's (no full-text index) behind a
  read-only Flask-Admin model view (its search box over title and author, its filter
  builder over every column), with the ``library`` domain. A record is a details page
  ``/admin/book/details/?id=N``; truth as for Datasette.

Measures, per app: the forms the crawl judged relevant (the form pages it built query
routes on, by domain), the query routes it ran, **recall** (the records the queries should
return that the crawl stored, by any route, over all of them), **recall via forms** (those
of them that a query's stored results pages, its answer and its pager's pages, link to),
**precision** (of the stored records that a query's results pages link to, the share that
query should return), pages fetched per wanted record stored, pages fetched against what a
script written for the app fetches for the same records (each query's results pages at the
app's default page size, then each wanted record once: the goal is at most 2×), and
the crawl's wall time.
The results pages are read for what they list because DeepBot stores a page reached two
ways once, under its first route: a record the link crawl queued first carries no query.
``--keep DIR`` keeps each crawl's store, for ``deepbot status`` and
``deepbot export`` afterwards, and the crawl's output beside it (``NAME.log``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, parse_qs, urljoin, urlsplit

BENCH = Path(__file__).resolve().parent
DOMAINS = BENCH / "realapps"
SEED = 35  # every app's data comes from random.Random(SEED): the same records each run

Query = dict[str, str]


def _query_key(query: Query) -> str:
    return json.dumps(query, sort_keys=True)


# -- processes on loopback --------------------------------------------------------------


def free_port() -> int:
    """A port nothing listens on now, on 127.0.0.1 (the app binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate ``proc``'s whole process group (it was started as a session leader), then kill it."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


@contextlib.contextmanager
def serving(cmd: Sequence[str], ready_url: str, log: Path, *, cwd: Path | None = None,
            timeout: float = 60.0) -> Iterator[None]:
    """Run the server ``cmd`` until the block ends; ready once ``ready_url`` answers below 500."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{cmd[0]} exited with {proc.returncode}:\n{log.read_text()[-2000:]}")
                try:
                    with urllib.request.urlopen(ready_url, timeout=2) as answer:
                        if answer.status < 500:
                            break
                except urllib.error.HTTPError as error:
                    if error.code < 500:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{ready_url} did not answer within {timeout:.0f} s")
                time.sleep(0.2)
            yield
        finally:
            _stop(proc)


def run_bounded(cmd: Sequence[str], *, timeout: float, cwd: Path | None = None) -> str:
    """Run ``cmd`` to its end (its process group killed at ``timeout`` s); its output, or an error."""
    proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(proc)
        raise RuntimeError(f"{' '.join(cmd[:4])} … took over {timeout:.0f} s") from None
    finally:
        _stop(proc)
    text = out.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} … exited {proc.returncode}:\n{text[-3000:]}")
    return text


# -- the apps ------------------------------------------------------------------------------


@dataclass
class Prepared:
    """An app ready to serve: how to start it, where its home page is, what its records are."""

    command: Callable[[int], list[str]]  # the server's command line for a port
    home: str  # path of the home page: the crawl's seed
    record_of: Callable[[SplitResult], str | None]  # a stored page's URL -> its record, if it is one
    truth: dict[str, set[str]]  # _query_key(query) -> the records that query should return
    records: int  # records in the app
    # Results a query's page lists (the app's default), for what a hand-written script
    # fetches: each query's results pages, then each wanted record once. None: one page.
    page_size: int | None
    cwd: Path | None = None
    ready: str = "/"  # a path that answers once the server is up


@dataclass(frozen=True)
class App:
    name: str
    module: str  # what must be importable
    pip: str  # the install line for it
    domain: Path
    prepare: Callable[[Path, list[Query], int], Prepared]  # (work dir, queries, port)
    max_pages: int  # the crawl's page budget: the apps' link graphs are large
    timeout: float  # the crawl's time bound, seconds

    def installed(self) -> bool:
        return importlib.util.find_spec(self.module) is not None


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.casefold()))


# Datasette ---------------------------------------------------------------------------------

def _wordlist(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_ADJECTIVES = _wordlist("silent golden hidden broken distant northern crimson quiet bitter wild frozen lost"
                        " burning hollow gentle iron")
_NOUNS = _wordlist("harbour garden river mountain lantern orchard kingdom mirror island forest winter voyage"
                   " tower meadow compass")
_FIRST = _wordlist("Ada Ben Chloe Dev Elena Farid Grace Hugo Ines Jonas Kira Liam Maya Nils Oona")
_LAST = _wordlist("Okafor Lindqvist Moreau Tanaka Novak Okonkwo Silva Brennan Kowalski Haddad Ferreira"
                  " Ivanova Mbeki Larsen")
_GENRES = _wordlist("fiction poetry history science travel biography mystery fantasy")


def _books(n: int) -> list[tuple[int, str, str, int, str]]:
    rng = random.Random(SEED)
    rows = []
    for i in range(1, n + 1):
        adjective, noun, other = (rng.choice(_ADJECTIVES).title(), rng.choice(_NOUNS).title(),
                                  rng.choice(_NOUNS).title())
        title = rng.choice((f"The {adjective} {noun}", f"{noun} of the {adjective} {other}",
                            f"A {adjective} {noun}"))
        author = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
        rows.append((i, title, author, rng.randint(1900, 2023), rng.choice(_GENRES)))
    return rows


def _book_matches(row: tuple[int, str, str, int, str], query: Query) -> bool:
    """Whether a book answers every attribute of ``query``, as the catalogue's own search would."""
    _, title, author, year, genre = row
    tests = {"title": lambda v: v.casefold() in _words(title),
             "author": lambda v: v.casefold() in _words(author),
             "genre": lambda v: v.casefold() == genre,
             "year": lambda v: v == str(year),
             "keywords": lambda v: _words(v) <= _words(f"{title} {author}")}
    return all(tests[attribute](value) for attribute, value in query.items() if value)


def _catalogue(path: Path, *, fts: bool) -> list[tuple[int, str, str, int, str]]:
    """Write the generated catalogue to a new SQLite file at ``path``; its rows."""
    rows = _books(3000)
    db = sqlite3.connect(path)
    try:
        db.execute("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, author TEXT, year INTEGER,"
                   " genre TEXT)")
        db.executemany("INSERT INTO books VALUES (?, ?, ?, ?, ?)", rows)
        if fts:
            # Full-text search as `sqlite-utils enable-fts` sets it up: an external-content FTS5
            # table naming its table with content="books", which is how Datasette finds it and
            # shows the table's search box.
            db.execute('CREATE VIRTUAL TABLE books_fts USING FTS5 (title, author, content="books",'
                       ' content_rowid="id")')
            db.execute("INSERT INTO books_fts (books_fts) VALUES ('rebuild')")
        db.commit()
    finally:
        db.close()
    return rows


def prepare_datasette(work: Path, queries: list[Query], port: int) -> Prepared:
    db_path = work / "library.db"
    rows = _catalogue(db_path, fts=True)
    truth = {_query_key(q): {f"book {row[0]}" for row in rows if _book_matches(row, q)} for q in queries}

    def record_of(url: SplitResult) -> str | None:
        found = re.fullmatch(r"/library/books/(\d+)", url.path)
        return f"book {found[1]}" if found else None

    return Prepared(
        command=lambda port: [sys.executable, "-m", "datasette", "serve", str(db_path), "--host", "127.0.0.1",
                              "--port", str(port)],
        home="/", record_of=record_of, truth=truth, records=len(rows), ready="/-/versions.json",
        page_size=100)  # Datasette's default_page_size


# Sphinx ------------------------------------------------------------------------------------

_CHAPTERS = ("install", "concepts", "pipelines", "operations", "reference")
_PROSE = _wordlist(
    "the stage reads records from a source and writes them to a sink while the scheduler keeps track of"
    " offsets batches partitions and retries each worker owns a slice of the input and reports progress"
    " through the control plane configuration lives in a single file that the command line tool validates"
    " before a run starts logs are structured and every error names the setting that caused it")
# The words the queries ask for, each in this one form only (Sphinx stems words for its index:
# no other word of the corpus may share a stem with one of them), each on about one page in eight.
_TERMS = ("checksum", "watermark", "tombstone", "backpressure", "compaction", "quorum")


def _manual(pages_per_chapter: int) -> dict[str, tuple[str, str]]:
    """``chapter/page`` -> (title, body) of the invented product's manual."""
    rng = random.Random(SEED)
    pages = {}
    for chapter in _CHAPTERS:
        for n in range(1, pages_per_chapter + 1):
            title = f"{chapter.title()} topic {n}"
            paragraphs = []
            for _ in range(rng.randint(2, 4)):
                words = [rng.choice(_PROSE) for _ in range(rng.randint(30, 60))]
                paragraphs.append(" ".join(words).capitalize() + ".")
            for term in _TERMS:
                if rng.random() < 0.12:
                    where = rng.randrange(len(paragraphs))
                    paragraphs[where] = paragraphs[where][:-1] + f" and the {term} is checked."
            pages[f"{chapter}/topic-{n:02d}"] = (title, "\n\n".join(paragraphs))
    return pages


def _heading(text: str, mark: str) -> str:
    return f"{text}\n{mark * len(text)}\n"


def prepare_sphinx(work: Path, queries: list[Query], port: int) -> Prepared:
    pages = _manual(30)
    src, out = work / "src", work / "html"
    src.mkdir()
    # A project as sphinx-quickstart lays it out: the default theme, a master toctree
    # over the chapters, each chapter's own toctree over its pages.
    (src / "conf.py").write_text('project = "Quarry"\nauthor = "Quarry authors"\nhtml_theme = "alabaster"\n')
    chapters = "\n".join(f"   {c}/index" for c in _CHAPTERS)
    (src / "index.rst").write_text(_heading("Quarry manual", "=") + "\nQuarry moves records between stores."
                                   f"\n\n.. toctree::\n   :maxdepth: 1\n\n{chapters}\n")
    for chapter in _CHAPTERS:
        (src / chapter).mkdir()
        entries = "\n".join(f"   {p.split('/')[1]}" for p in pages if p.startswith(chapter + "/"))
        (src / chapter / "index.rst").write_text(_heading(chapter.title(), "=")
                                                 + f"\n.. toctree::\n   :maxdepth: 1\n\n{entries}\n")
    for path, (title, body) in pages.items():
        (src / f"{path}.rst").write_text(_heading(title, "=") + "\n" + body + "\n")
    run_bounded([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(src), str(out)], timeout=300)

    def matches(path: str, query: Query) -> bool:
        title, body = pages[path]
        return all(_words(value) <= _words(f"{title} {body}") for value in query.values() if value)

    truth = {_query_key(q): {p for p in pages if matches(p, q)} for q in queries}

    def record_of(url: SplitResult) -> str | None:
        page = url.path.removeprefix("/").removesuffix(".html")
        return page if page in pages else None

    return Prepared(
        command=lambda port: [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                              "--directory", str(out)],
        home="/", record_of=record_of, truth=truth, records=len(pages), ready="/index.html",
        page_size=None)  # searchtools.js lists every result on the search page


# Roundup -----------------------------------------------------------------------------------

_PARTS = _wordlist("printer scanner mailer backup invoice calendar dashboard keyboard")
_SYMPTOMS = _wordlist("timeout crash freeze leak glitch")
_WHEN = _wordlist("login upload export startup shutdown sync")
# Issues are created through Roundup's own API, in a process of the app's Python (the
# tracker's schema and detectors run as they would for a web submission).
_CREATE_ISSUES = """
import json, sys
import roundup.instance
tracker = roundup.instance.open(sys.argv[1])
db = tracker.open("admin")
priorities, statuses = db.priority.list(), db.status.list()
for title, priority, status in json.load(sys.stdin):
    db.issue.create(title=title, priority=priorities[priority % len(priorities)],
                    status=statuses[status % len(statuses)])
db.commit()
db.close()
"""


def _issues(n: int) -> list[tuple[str, int, int]]:
    rng = random.Random(SEED)
    return [(f"{rng.choice(_PARTS).title()} {rng.choice(_SYMPTOMS)} on {rng.choice(_WHEN)}",
             rng.randrange(5), rng.randrange(8)) for _ in range(n)]


def prepare_roundup(work: Path, queries: list[Query], port: int) -> Prepared:
    issues = _issues(400)
    tracker = work / "tracker"
    admin = [sys.executable, "-m", "roundup.scripts.roundup_admin", "-i", str(tracker)]
    run_bounded([*admin, "install", "classic", "sqlite"], timeout=120)
    config = tracker / "config.ini"
    # The two settings `install` leaves for the admin to make: where the tracker is served
    # and the mail domain (initialise refuses to run without it; no mail is ever sent).
    config.write_text(config.read_text()
                      .replace("#web = NO DEFAULT", f"web = http://127.0.0.1:{port}/tracker/")
                      .replace("#domain = NO DEFAULT", "domain = example.invalid"))
    run_bounded([*admin, "initialise", "bench-admin-password"], timeout=120)
    proc = subprocess.run([sys.executable, "-c", _CREATE_ISSUES, str(tracker)],
                          input=json.dumps(issues).encode(), capture_output=True, timeout=300, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"creating Roundup issues failed:\n{proc.stderr.decode()[-2000:]}")
    as_user: list[str] = []
    if os.geteuid() == 0:
        # roundup-server will not run as root ("Can't run as root!"): it drops to nobody,
        # who must reach the tracker through the temporary directory (created 0700).
        as_user = ["-u", "nobody", "-g", "nogroup"]
        for path in (work, *work.rglob("*")):
            path.chmod(path.stat().st_mode | 0o777 if path.is_dir() else path.stat().st_mode | 0o666)

    def matches(title: str, query: Query) -> bool:
        # The search page's title box and the full-text box both look for the word in the title
        # (the issues have no messages: the title is all their indexed text).
        return all(_words(value) <= _words(title) for value in query.values() if value)

    truth = {_query_key(q): {f"issue{i}" for i, (title, _, _) in enumerate(issues, 1) if matches(title, q)}
             for q in queries}

    def record_of(url: SplitResult) -> str | None:
        found = re.fullmatch(r"/tracker/(issue\d+)", url.path)
        return found[1] if found else None

    return Prepared(
        command=lambda port: [sys.executable, "-m", "roundup.scripts.roundup_server", *as_user,
                              "-n", "127.0.0.1", "-p", str(port), f"tracker={tracker}"],
        home="/tracker/", record_of=record_of, truth=truth, records=len(issues), ready="/tracker/",
        page_size=50)  # the classic template's index: @pagesize=50


# Flask-Admin -------------------------------------------------------------------------------

# Flask-Admin is a library: an app is the few lines that declare a model and its admin
# view, as its documentation's first example does. This one is read-only (no create, edit
# or delete), with a details page per row, a search box over title and author and the
# filter builder over every column; the rest is Flask-Admin's default.
_FLASK_ADMIN_APP = """
import sys
from flask import Flask, redirect
from flask_admin import Admin
from flask_admin.contrib.sqla import ModelView
from flask_sqlalchemy import SQLAlchemy

app = Flask(__name__)
app.config["SQLALCHEMY_DATABASE_URI"] = "sqlite:///" + sys.argv[1]
app.config["SECRET_KEY"] = "realapps-bench"
db = SQLAlchemy(app)


class Book(db.Model):
    __tablename__ = "books"
    id = db.Column(db.Integer, primary_key=True)
    title = db.Column(db.Text)
    author = db.Column(db.Text)
    year = db.Column(db.Integer)
    genre = db.Column(db.Text)


class BookView(ModelView):
    can_create = can_edit = can_delete = False
    can_view_details = True
    column_searchable_list = ["title", "author"]
    column_filters = ["title", "author", "year", "genre"]


@app.route("/")
def home():
    return redirect("/admin/")


Admin(app, name="Library").add_view(BookView(Book, db))
app.run(host="127.0.0.1", port=int(sys.argv[2]), debug=False)
"""


def prepare_flask_admin(work: Path, queries: list[Query], port: int) -> Prepared:
    db_path = work / "library.db"
    rows = _catalogue(db_path, fts=False)
    (work / "library_admin.py").write_text(_FLASK_ADMIN_APP)
    truth = {_query_key(q): {f"book {row[0]}" for row in rows if _book_matches(row, q)} for q in queries}

    def record_of(url: SplitResult) -> str | None:
        ids = parse_qs(url.query).get("id", []) if url.path == "/admin/book/details/" else []
        return f"book {ids[0]}" if ids else None

    return Prepared(
        command=lambda port: [sys.executable, str(work / "library_admin.py"), str(db_path), str(port)],
        home="/", record_of=record_of, truth=truth, records=len(rows), ready="/admin/",
        page_size=20)  # ModelView.page_size


# -- crawling and scoring --------------------------------------------------------------------


def crawl(app: App, base: str, store: Path, max_pages: int) -> tuple[str, float]:
    """``deepbot crawl`` from the home page with the app's domain; its output and wall seconds.

    A crawl still running at the app's time bound is stopped and scored on what it had
    stored (every stored page is committed), its output saying so: a slow app is a finding.
    """
    cmd = [sys.executable, "-m", "deepbot", "crawl", "--seed", base + "/", "--domain", str(app.domain),
           "--store", str(store), "--max-pages", str(max_pages), "--quiet"]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=app.timeout)
    except subprocess.TimeoutExpired:
        _stop(proc)
        out, _ = proc.communicate()
        out += f"\nrealapps: crawl stopped at its time bound, {app.timeout:.0f} s\n".encode()
    finally:
        _stop(proc)
    text = out.decode(errors="replace")
    if proc.returncode not in (0, -signal.SIGTERM, -signal.SIGKILL):
        raise RuntimeError(f"deepbot crawl exited {proc.returncode}:\n{text[-3000:]}")
    return text, time.perf_counter() - started


@dataclass
class Score:
    app: str
    domain: str
    relevant_forms: list[str] = field(default_factory=list)  # "domain: form page"
    query_routes: int = 0  # query routes built (each relevant form times each query)
    queries_run: int = 0  # query routes that were run to their end
    records: int = 0  # records in the app
    truth: int = 0  # records some query should return
    found: int = 0  # of those, stored by any route
    found_via_forms: int = 0  # of those, stored and listed in the stored results of a query that should
    reached: int = 0  # (query, record) pairs: a record listed in the query's stored results, and stored
    matching: int = 0  # of those, the ones the query should return
    stored_under_query: int = 0  # record documents that carry the query they were reached under
    fetched: int = 0
    script: int = 0  # pages a hand-written script fetches for the same records (Prepared.page_size)
    stored: int = 0
    wall_s: float = 0.0
    timed_out: bool = False
    per_query: dict[str, dict[str, int]] = field(default_factory=dict)

    def as_row(self) -> dict[str, Any]:
        return {
            "app": self.app, "domain": self.domain, "relevant_forms": len(self.relevant_forms),
            "relevant_form_pages": self.relevant_forms[:10], "query_routes": self.query_routes,
            "queries_run": self.queries_run, "records": self.records, "truth": self.truth,
            "found": self.found, "recall": _ratio(self.found, self.truth),
            "found_via_forms": self.found_via_forms,
            "recall_via_forms": _ratio(self.found_via_forms, self.truth),
            "reached_via_forms": self.reached, "precision": _ratio(self.matching, self.reached),
            "stored_under_query": self.stored_under_query, "fetched": self.fetched, "stored": self.stored,
            "pages_per_record": round(self.fetched / self.found, 2) if self.found else None,
            "script_pages": self.script,
            "times_script": round(self.fetched / self.script, 2) if self.script else None,
            "wall_s": round(self.wall_s, 1), "timed_out": self.timed_out, "per_query": self.per_query,
        }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


class _Hrefs(HTMLParser):
    """The ``href`` of every anchor in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs.extend(value for name, value in attrs if name == "href" and value)


def _listed(html: bytes | None, page_url: str, record_of: Callable[[SplitResult], str | None]) -> set[str]:
    """The records a stored page links to."""
    if not html:
        return set()
    parser = _Hrefs()
    parser.feed(zlib.decompress(html).decode(errors="replace"))
    records = (record_of(urlsplit(urljoin(page_url, href))) for href in parser.hrefs)
    return {r for r in records if r is not None}


def score(app: App, prepared: Prepared, store: Path, output: str, wall: float) -> Score:
    """What the crawl in ``store`` reached, against the app's truth.

    A page reached two ways is stored once, under the route that reached it first
    (DeepBot's frontier dedupes by URL): a record the link crawl had queued before a
    query's results listed it carries no query. So what the queries reached is read from
    the results pages themselves: the records each query's stored results pages (its
    form's answer and the pages along its pager) link to, that the crawl stored.
    """
    fetched = re.search(r"Crawl finished: (\d+) pages fetched, (\d+) documents stored", output)
    result = Score(app=app.name, domain=app.domain.name, records=prepared.records, wall_s=wall,
                   fetched=int(fetched[1]) if fetched else 0, stored=int(fetched[2]) if fetched else 0,
                   timed_out="crawl stopped at its time bound" in output)
    # Opened read-write: a crawl stopped at its time bound leaves a write-ahead log to recover.
    db = sqlite3.connect(store)
    try:
        if not fetched:  # no summary from a stopped crawl: the routes it finished
            result.fetched = int(db.execute("SELECT count(*) FROM routes WHERE state = 2").fetchone()[0])
            result.stored = int(db.execute("SELECT count(*) FROM documents").fetchone()[0])
        forms: dict[str, None] = {}
        for data, state in db.execute("SELECT p.data, r.state FROM routes r JOIN route_payloads p USING (seq)"
                                      " WHERE json_extract(p.data, '$.via') = 'form' ORDER BY r.seq"):
            route = json.loads(data)
            forms.setdefault(f"{route['domain']}: {route['form_url']}")
            result.query_routes += 1
            result.queries_run += state == 2  # RouteState.DONE
        result.relevant_forms = list(forms)
        stored: set[str] = set()
        listed: dict[str, set[str]] = {}  # query -> records its stored results pages link to
        for final_url, via, query, html in db.execute("SELECT final_url, via, query, html FROM documents"):
            record = prepared.record_of(urlsplit(final_url))
            if record is not None:
                stored.add(record)
                result.stored_under_query += query is not None
            elif query is not None and via in ("form", "next"):
                asked = _query_key(json.loads(query))
                listed.setdefault(asked, set()).update(_listed(html, final_url, prepared.record_of))
    finally:
        db.close()
    wanted = set().union(*prepared.truth.values()) if prepared.truth else set()
    result.truth, result.found = len(wanted), len(wanted & stored)
    result.script = script_pages(prepared)
    via_forms: set[str] = set()
    for asked, records in listed.items():
        reached = records & stored
        should = prepared.truth.get(asked, set())
        result.reached += len(reached)
        result.matching += len(reached & should)
        via_forms |= reached & should
    result.found_via_forms = len(via_forms)
    for asked, records in prepared.truth.items():
        result.per_query[asked] = {"truth": len(records), "stored": len(records & stored),
                                   "listed_in_its_results": len(records & listed.get(asked, set())),
                                   "listed_not_wanted": len(listed.get(asked, set()) - records)}
    return result


def script_pages(prepared: Prepared) -> int:
    """What a script written for the app fetches to get every wanted record: each query's
    results pages (its answer and its pager's), then each wanted record once."""
    size = prepared.page_size
    answers = sum(1 if size is None else max(1, -(-len(records) // size))
                  for records in prepared.truth.values())
    return answers + len(set().union(*prepared.truth.values()) if prepared.truth else ())


def domain_queries(path: Path) -> list[Query]:
    from deepbot.config.domain import load_domain  # DeepBot itself: installed with the repository

    return [dict(q) for q in load_domain(path).queries]


def run_app(app: App, max_pages: int | None = None, keep: Path | None = None) -> Score:
    with tempfile.TemporaryDirectory(prefix=f"realapps-{app.name}-") as tmp:
        work = Path(tmp)
        port = free_port()
        prepared = app.prepare(work, domain_queries(app.domain), port)
        base = f"http://127.0.0.1:{port}"
        store = (keep or work) / f"{app.name}.sqlite"
        if keep:
            keep.mkdir(parents=True, exist_ok=True)
            for stale in keep.glob(f"{app.name}.sqlite*"):
                stale.unlink()
        with serving(prepared.command(port), base + prepared.ready, work / "server.log", cwd=prepared.cwd):
            output, wall = crawl(app, base + prepared.home.rstrip("/"), store, max_pages or app.max_pages)
        if keep:
            (keep / f"{app.name}.log").write_text(output)
        return score(app, prepared, store, output, wall)


APPS = (
    App("datasette", "datasette", "pip install datasette", DOMAINS / "library.yaml", prepare_datasette,
        max_pages=3000, timeout=900),
    App("sphinx", "sphinx", "pip install sphinx", DOMAINS / "manual.yaml", prepare_sphinx,
        max_pages=1000, timeout=600),
    App("roundup", "roundup", "pip install roundup", DOMAINS / "tracker.yaml", prepare_roundup,
        max_pages=1500, timeout=600),
    App("flask-admin", "flask_admin", "pip install flask-admin flask-sqlalchemy", DOMAINS / "library.yaml",
        prepare_flask_admin, max_pages=3000, timeout=900),
)


def print_table(rows: Sequence[dict[str, Any]]) -> None:
    def pct(value: float | None) -> str:
        return "—" if value is None else f"{value:.0%}"

    print("| app | relevant forms | query routes run | records wanted | found (via forms) | recall |"
          " recall via forms | precision | pages fetched | pages / record | × a script's | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "skipped" in r:
            print(f"| {r['app']} | skipped: {r['skipped']} |" + " |" * 10)
            continue
        print(f"| {r['app']} | {r['relevant_forms']} | {r['queries_run']} of {r['query_routes']} |"
              f" {r['truth']} of {r['records']} | {r['found']} ({r['found_via_forms']}) |"
              f" {pct(r['recall'])} |"
              f" {pct(r['recall_via_forms'])} | {pct(r['precision'])} of {r['reached_via_forms']} |"
              f" {r['fetched']} | {r['pages_per_record'] or '—'} |"
              f" {r['times_script'] or '—'} ({r['script_pages']}) |"
              f" {r['wall_s']}{' (stopped at the time bound)' if r['timed_out'] else ''} |")
    for r in rows:
        if "skipped" in r:
            continue
        print(f"\n{r['app']} ({r['domain']}): relevant forms, first {min(3, r['relevant_forms'])}:")
        for form in r["relevant_form_pages"][:3]:
            print(f"  {form}")
        for asked, n in r["per_query"].items():
            print(f"  {asked}: should return {n['truth']}, stored {n['stored']}, listed in its results"
                  f" {n['listed_in_its_results']} (and {n['listed_not_wanted']} it should not return)")


def main() -> None:
    parser = argparse.ArgumentParser(description=textwrap.dedent(__doc__ or ""),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--app", action="append", choices=[a.name for a in APPS],
                        help="run this app only (repeatable; default: every installed app)")
    parser.add_argument("--max-pages", type=int, help="the crawl's page budget (default: the app's own)")
    parser.add_argument("--keep", type=Path, help="keep each crawl's store in this directory")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for app in APPS:
        if args.app and app.name not in args.app:
            continue
        if not app.installed():
            if args.app:
                parser.exit(2, f"{app.name} is not installed: {app.pip}\n")
            rows.append({"app": app.name, "skipped": f"not installed ({app.pip})"})
            continue
        rows.append(run_app(app, args.max_pages, args.keep).as_row())
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print_table(rows)


if __name__ == "__main__":
    main()
