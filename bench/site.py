"""The throughput benchmark's site: generated, deterministic, served on loopback.

    python bench/site.py --serve [--pages 1000] [--port 8765] [--assets 30] [--latency 0.5 | 0.5-1.5]

``build_site(n)`` makes ``n`` HTML pages of 20–40 KB each (navigation, a breadcrumb,
tables, 30–60 links, a few paragraphs, inline script, an external stylesheet and a
few images), all reachable from ``/`` by breadth-first search within depth 4: page
``i``'s parent is page ``(i - 1) // 8``, so even without the random cross-links
1 + 8 + 64 + 512 + 4096 pages fit in depth 4. Cross-links, fragment links, an
off-site link and a ``mailto:`` make the link graph look like a real catalogue.
``build_site(n, assets=k)`` adds ``k`` external scripts and style sheets to every page's
head, shared by all pages and cacheable, as a real site's libraries are (a median page
asks for some twenty scripts and style sheets): what a crawler pays per subresource.
``SiteServer(site, latency=s)`` answers each page after ``s`` seconds, as a real server
that builds its pages: on loopback with no wait the machine's cores are the bound.
``latency=Latency(0.5, 1.5)`` spreads the pages' waits over a range, each page's fixed.

``SiteServer`` serves it from memory with a threaded HTTP/1.1 server and counts the
GETs of HTML pages itself, so "all pages fetched" never rests on a crawler's word.
(This file is loaded by path — ``import site`` would give the standard library's.)
"""

from __future__ import annotations

import argparse
import contextlib
import random
import re
import sys
import threading
import time
import zlib
from collections import Counter, deque
from dataclasses import dataclass, field
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BRANCHING = 8  # children per page in the spanning tree; see the module docstring
SECTIONS = ("books", "music", "films", "games", "garden", "kitchen", "tools", "toys", "sports", "travel")
_WORDS = " ".join((
    "archive catalogue edition volume paperback hardcover signed review author publisher series chapter "
    "index collection rare vintage modern classic annotated illustrated translated revised abridged "
    "complete selected letters essays poems stories novel history science travel garden kitchen music "
    "record vinyl cassette sleeve label studio live remaster deluxe limited import pressing stereo mono "
    "condition mint fine good fair dust jacket spine corner shelf wear price shipping order basket "
    "account search results page next previous sort filter genre subject year format language",
)).split()
# A 1×1 transparent PNG: images are disabled in every contestant's Chromium, so these
# requests should never arrive; the server counts them to show that.
_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)
_CSS = b"""body{font-family:sans-serif;margin:0;color:#222}header,footer{background:#eee;padding:8px}
nav a{margin-right:.6em}main{display:grid;grid-template-columns:3fr 1fr;gap:1em;padding:1em}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}
.thumb{width:64px;height:64px}.price{text-align:right}.muted{color:#777}
"""


def page_path(i: int) -> str:
    """URL path of page ``i``; page 0 is the root."""
    return "/" if i == 0 else f"/{SECTIONS[i % len(SECTIONS)]}/item-{i:05d}.html"


@dataclass(frozen=True)
class Site:
    """The generated pages (path -> HTML bytes) and the other files the pages use."""

    pages: dict[str, bytes]
    assets: dict[str, tuple[bytes, str]]  # path -> (body, content type)
    links: dict[str, tuple[str, ...]]  # path -> in-site page paths it links to (as generated)

    @property
    def paths(self) -> list[str]:
        return list(self.pages)


def _sentence(rng: random.Random) -> str:
    words = rng.choices(_WORDS, k=rng.randint(8, 18))
    return " ".join(words).capitalize() + "."


def build_site(n_pages: int = 1000, seed: int = 7, *, assets: int = 0) -> Site:
    """Generate ``n_pages`` pages (``assets`` extra scripts and style sheets in each
    one's head); the same arguments always give the same bytes."""
    if n_pages < 2:
        raise ValueError("a site needs at least 2 pages")
    if assets < 0:
        raise ValueError("assets must be 0 or more")
    extra = _assets(assets)
    head = "".join(f"<script src='{p}' defer></script>" if p.endswith(".js")
                   else f"<link rel='stylesheet' href='{p}'>" for p in extra).encode()
    rng = random.Random(seed)
    # A pool of sentences keeps generation fast (~1 s for 1,000 pages) yet varied.
    sentences = [_sentence(rng) for _ in range(2000)]
    pages: dict[str, bytes] = {}
    links: dict[str, tuple[str, ...]] = {}
    nav_targets = list(range(1, min(len(SECTIONS), n_pages - 1) + 1))
    for i in range(n_pages):
        path = page_path(i)
        parent = (i - 1) // BRANCHING if i else None
        children = [c for c in range(i * BRANCHING + 1, i * BRANCHING + BRANCHING + 1) if c < n_pages]
        fixed = 1 + len(nav_targets) + (parent is not None) + len(children) + 3  # + #top, off-site, mailto
        n_related = max(0, rng.randint(30, 60) - fixed)
        # Related items point back up and across, never deeper than one's own children:
        # as on a real catalogue, the deep pages are found only by going deep.
        horizon = min(n_pages, (i + 1) * BRANCHING + 1)
        related = [rng.randrange(horizon) for _ in range(n_related)]
        html = _render(i, path, parent, children, nav_targets, related, rng, sentences)
        if head:
            html = html.replace(b"</head>", head + b"</head>", 1)
        pages[path] = html
        targets = [0, *nav_targets, *([parent] if parent is not None else []), *children, *related]
        links[path] = tuple(dict.fromkeys(page_path(t) for t in targets))
    files: dict[str, tuple[bytes, str]] = {
        "/robots.txt": (b"User-agent: *\nAllow: /\n", "text/plain; charset=utf-8"),
        "/static/site.css": (_CSS, "text/css; charset=utf-8"),
        "/favicon.ico": (_PNG, "image/png"),
    }
    return Site(pages, {**files, **extra}, links)


def _assets(n: int) -> dict[str, tuple[bytes, str]]:
    """``n`` small library files, two scripts to one style sheet."""
    out: dict[str, tuple[bytes, str]] = {}
    for k in range(n):
        if k % 3 == 2:
            out[f"/static/lib-{k:02d}.css"] = (f".lib-{k} {{ margin: {k}px }}\n".encode(), "text/css")
        else:
            out[f"/static/lib-{k:02d}.js"] = (f"window.lib{k} = {{ loaded: {k} }};\n".encode(),
                                              "text/javascript")
    return out


def _price(rng: random.Random) -> str:
    return f"<td class='price'>{rng.randint(1, 999)}.99</td>"


def _render(i: int, path: str, parent: int | None, children: list[int], nav_targets: list[int],
            related: list[int], rng: random.Random, sentences: list[str]) -> bytes:
    title = "Home" if i == 0 else f"{SECTIONS[i % len(SECTIONS)].title()} item {i}"
    target_size = rng.randint(20_500, 39_500)
    out: list[str] = [
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>",
        f"<title>{escape(title)} — Bench Catalogue</title>",
        "<meta name='viewport' content='width=device-width'>",
        "<link rel='stylesheet' href='/static/site.css'></head>\n<body id='top'>",
        "<header><a href='/'>Bench Catalogue</a><nav>",
        *(f"<a href='{page_path(t)}'>{SECTIONS[t % len(SECTIONS)].title()}</a>" for t in nav_targets),
        "</nav></header>\n<main><article>",
    ]
    if parent is not None:
        out.append(f"<p class='crumbs'><a href='{page_path(parent)}'>Up: item {parent}</a> / "
                   f"{escape(title)}</p>")
    out.append(f"<h1>{escape(title)}</h1>")
    out.extend(f"<img class='thumb' src='/img/{i}-{k}.png' alt=''>" for k in "ab")
    out.append("<table id='specs'><tbody>")
    for k in range(rng.randint(8, 14)):
        out.append(f"<tr><th>{escape(_WORDS[(i + k * 7) % len(_WORDS)])}</th>"
                   f"<td>{escape(rng.choice(sentences))}</td>{_price(rng)}</tr>")
    out.append("</tbody></table><p class='muted' id='spec-count'></p>")
    # Some inline script, as real pages have: it runs on every load, touches the DOM,
    # and adds no links and no storage (so every crawler sees the same pages).
    out.append(
        "<script>(function(){var n=0;document.querySelectorAll('#specs td').forEach(function(td)"
        "{n+=td.textContent.length});document.getElementById('spec-count').textContent="
        "n+' characters of specification';})();</script>"
    )
    if children:
        out.append("<h2>In this section</h2><ul class='children'>")
        out.extend(f"<li><a href='{page_path(c)}'>Item {c}</a></li>" for c in children)
        out.append("</ul>")
    out.append("<h2>Related</h2><table class='related'><thead><tr><th>Item</th><th>Note</th>"
               "<th>Price</th></tr></thead><tbody>")
    for r in related:
        fragment = "#reviews" if rng.random() < 0.1 else ""  # same page, a different spot
        out.append(f"<tr><td><a href='{page_path(r)}{fragment}'>Item {r}</a></td>"
                   f"<td>{escape(rng.choice(sentences))}</td>{_price(rng)}</tr>")
    out.append("</tbody></table>")
    tail = (
        "</article><aside><h3>Help</h3><p>Questions? <a href='mailto:help@bench.invalid'>Write to us</a>.</p>"
        "<p><a href='https://partner.bench.invalid/offers'>Partner offers</a></p></aside></main>\n"
        "<footer><a href='#top'>Back to top</a> · page " + str(i) + "</footer>"
        "<script>document.body.dataset.ready='1';</script></body></html>\n"
    )
    out.append("<section id='reviews'><h2>Description</h2>")
    size = sum(len(s) for s in out) + len(tail)
    while size < target_size:
        para = "<p>" + " ".join(rng.choices(sentences, k=6)) + "</p>"
        out.append(para)
        size += len(para)
    out.append("</section>")
    out.append(tail)
    return "".join(out).encode()


_HREF = re.compile(r"""<a\s[^>]*href=['"]([^'"]+)['"]""", re.I)


def bfs_depths(site: Site) -> dict[str, int]:
    """Depth of every page reachable from ``/``, found by parsing the served HTML."""
    depths = {"/": 0}
    queue = deque(["/"])
    while queue:
        path = queue.popleft()
        for href in _HREF.findall(site.pages[path].decode()):
            target = href.split("#", 1)[0]
            if target.startswith("/") and target in site.pages and target not in depths:
                depths[target] = depths[path] + 1
                queue.append(target)
    return depths


@dataclass
class Counts:
    """What the server saw since the last reset."""

    pages: Counter[str] = field(default_factory=Counter)  # HTML page path -> GETs
    other: Counter[str] = field(default_factory=Counter)  # robots, CSS, images, 404s…
    first_page_at: float | None = None  # time.monotonic() of the first/last HTML GET
    last_page_at: float | None = None

    @property
    def distinct_pages(self) -> int:
        return len(self.pages)

    @property
    def page_gets(self) -> int:
        return sum(self.pages.values())


@dataclass(frozen=True)
class Latency:
    """How long the server takes to build a page: ``low`` seconds, or, with a ``high``
    above it, a time between the two that is fixed per path (each contestant waits the
    same for the same page) and spread evenly over the site's pages. A fixed wait keeps
    workers that started together in step; real pages take different times to build."""

    low: float = 0.0
    high: float | None = None

    def __post_init__(self) -> None:
        if not (self.low >= 0 and (self.high is None or self.high >= self.low)):
            raise ValueError(f"latency must be at least 0 s and a range low-high, not {self}")

    def __bool__(self) -> bool:
        return bool(self.low or self.high)

    def __str__(self) -> str:
        return f"{self.low:g}" if self.high is None else f"{self.low:g}-{self.high:g}"

    @property
    def mean(self) -> float:
        return self.low if self.high is None else (self.low + self.high) / 2

    def for_path(self, path: str) -> float:
        if self.high is None:
            return self.low
        share = zlib.crc32(path.encode()) / 0xFFFFFFFF  # the same share of the range each run
        return self.low + (self.high - self.low) * share


def latency_arg(text: str) -> Latency:
    """``--latency`` for every benchmark that serves the site: seconds (``1``), or a range
    (``0.5-1.5``) within which each page's wait is fixed, at least 0."""
    low, dash, high = text.partition("-")
    try:
        latency = Latency(float(low), float(high) if dash else None)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not seconds (1) or a range of seconds (0.5-1.5), at least 0: {text!r}") from None
    return latency


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser closing its idle keep-alive connections as it exits is no error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class SiteServer:
    """Serves a Site on 127.0.0.1 from memory, counting requests."""

    def __init__(self, site: Site, host: str = "127.0.0.1", port: int = 0, *,
                 latency: float | Latency = 0.0):
        if not isinstance(latency, Latency):
            latency = Latency(latency)
        self.site = site
        # Seconds before each HTML page's answer, as a real server takes to build a page
        # (a catalogue's search results take tenths of a second). Assets answer at once, as
        # from a CDN. Each connection has its own thread, so waits overlap as they would.
        self.latency = latency
        self._lock = threading.Lock()
        self._counts = Counts()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as a real server
            server_version = "BenchSite/1"

            def do_GET(self) -> None:
                self._answer(send_body=True)

            def do_HEAD(self) -> None:
                self._answer(send_body=False)

            def _answer(self, send_body: bool) -> None:
                path = self.path.split("?", 1)[0].split("#", 1)[0]
                page = server.site.pages.get(path)
                status = 200
                if page is not None:
                    body, ctype = page, "text/html; charset=utf-8"
                elif path in server.site.assets:
                    body, ctype = server.site.assets[path]
                elif path.startswith("/img/"):
                    body, ctype = _PNG, "image/png"
                else:
                    body, ctype, status = b"<!DOCTYPE html><title>Not found</title>", "text/html", 404
                if send_body:
                    server._count(path if page is not None else None, f"{status} {path}")
                if page is not None and server.latency:
                    time.sleep(server.latency.for_path(path))
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                if page is None and status == 200:
                    self.send_header("Cache-Control", "max-age=3600")  # the stylesheet, once per context
                self.end_headers()
                if send_body:
                    # A crawler killed at its time limit hangs up mid-page.
                    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                        self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass  # thousands of lines per run would drown the report

        self._httpd = _QuietServer((host, port), Handler)
        self._httpd.server_name = host  # not the reverse-DNS name that HTTPServer looks up
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    def _count(self, page: str | None, other: str) -> None:
        now = time.monotonic()
        with self._lock:
            if page is None:
                self._counts.other[other] += 1
                return
            self._counts.pages[page] += 1
            if self._counts.first_page_at is None:
                self._counts.first_page_at = now
            self._counts.last_page_at = now

    @property
    def url(self) -> str:
        return f"http://{self._httpd.server_name}:{self._httpd.server_port}/"

    def page_urls(self) -> list[str]:
        """Every page's URL, root first, in breadth-first order (the bare loop's list)."""
        base = self.url.rstrip("/")
        depths = bfs_depths(self.site)
        return [base + p for p in sorted(self.site.pages, key=lambda p: (depths.get(p, 99), p))]

    def counts(self) -> Counts:
        with self._lock:
            c = self._counts
            return Counts(Counter(c.pages), Counter(c.other), c.first_page_at, c.last_page_at)

    def reset(self) -> None:
        with self._lock:
            self._counts = Counts()

    def start(self) -> SiteServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="bench-site", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> SiteServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the throughput benchmark's generated site.")
    parser.add_argument("--serve", action="store_true", help="serve until Ctrl-C")
    parser.add_argument("--pages", type=int, default=1000, help="pages in the site (default 1000)")
    parser.add_argument("--seed", type=int, default=7,
                        help="random seed: the same seed builds the same site (default 7)")
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (default 8765)")
    parser.add_argument("--assets", type=int, default=0, help="extra scripts and style sheets per page")
    parser.add_argument("--latency", type=latency_arg, default=Latency(),
                        help="seconds the server takes to answer each HTML page, or a range (0.5-1.5) "
                             "within which each page's time is fixed (default 0)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    site = build_site(args.pages, args.seed, assets=args.assets)
    depths = bfs_depths(site)
    sizes = sorted(len(b) for b in site.pages.values())
    print(f"{len(site.pages)} pages in {time.perf_counter() - started:.1f} s, "
          f"{sizes[0] // 1024}–{sizes[-1] // 1024} KB each, all within depth {max(depths.values())} "
          f"({len(depths)} reachable)")
    if not args.serve:
        return 0
    with SiteServer(site, port=args.port, latency=args.latency) as server:
        print(f"serving on {server.url} — Ctrl-C to stop")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
        c = server.counts()
        print(f"{c.distinct_pages}/{len(site.pages)} pages fetched, {c.page_gets} HTML GETs, "
              f"{sum(c.other.values())} other requests")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
