"""Responses bounded while they arrive: a size cap and an inflation bound.

A hostile server can answer with a body far larger than any page (a 400 MB file) or
with a small one that inflates to gigabytes (a gzip of zeros: ~1,000 bytes out for
each byte in). Reading either whole before a cap applies fills the memory of whichever
process reads it. So, as Scrapy does since its fix of CVE-2024-3572 (DOWNLOAD_MAXSIZE
applied to the *decompressed* bytes, counted chunk by chunk), every response DeepBot
reads is counted as it arrives, and given up as "too large" once:

- its bytes (decoded: what the page or the store would hold) pass ``max_bytes``; or
- past ``RATIO_FLOOR`` decoded bytes, it has inflated more than ``max_ratio`` times the
  bytes that came over the wire (a page of repeated markup compresses ~10×; a bomb ~1,000×).

``Bounds.check`` is the rule, for the browser's responses (``browser.guard`` counts them
from Chromium's network events) and for ``fetch`` here, the crawl's own download of a
file the browser would not show: a streamed HTTP client (stdlib, in a worker thread) that
inflates gzip/deflate 64 KiB at a time with a bounded output.
"""

from __future__ import annotations

import asyncio
import http.client
import time
import urllib.error
import urllib.request
import zlib
from dataclasses import dataclass
from urllib.parse import urlsplit

from deepbot.errors import BrowserError

MAX_BODY_BYTES = 20_000_000
MAX_RATIO = 100.0
RATIO_FLOOR = 1_000_000  # decoded bytes below which no ratio is judged: small pages compress well
_CHUNK = 64 * 1024
_MAX_REDIRECTS = 5
_TIMEOUT_S = 30.0


class TooLarge(BrowserError):
    """A response passed the size or inflation bound while it arrived: the route fails for good."""


@dataclass(frozen=True, slots=True)
class Bounds:
    max_bytes: int = MAX_BODY_BYTES
    max_ratio: float = MAX_RATIO

    def check(self, url: str, decoded: int, encoded: int | None) -> str | None:
        """Why a response of ``decoded`` bytes so far (``encoded`` over the wire, if known)
        must be given up, or None."""
        if decoded > self.max_bytes:
            return f"response too large: {url[:200]} passed {self.max_bytes:,} bytes while it arrived"
        if encoded and decoded > RATIO_FLOOR and decoded > encoded * self.max_ratio:
            return (f"response too large: {url[:200]} inflated {decoded // encoded:,}× ({encoded:,} bytes "
                    f"to {decoded:,} so far; at most {self.max_ratio:g}×)")
        return None


@dataclass(frozen=True, slots=True)
class Fetched:
    body: bytes
    status: int
    headers: dict[str, str]


async def fetch(url: str, bounds: Bounds, *, cookie: str = "", user_agent: str | None = None,
                proxy: str | None = None, timeout_s: float = _TIMEOUT_S) -> Fetched:
    """GET ``url`` (following at most 5 http(s) redirects) within ``bounds``; TooLarge past them.

    ``proxy``: the crawl's (the egress proxy of --block-private, which checks every address,
    or --proxy); without one the connection is direct, as the browser's is.
    """
    return await asyncio.wait_for(asyncio.to_thread(_get, url, bounds, cookie, user_agent, proxy, timeout_s),
                                  timeout_s * 2)


class _Redirects(urllib.request.HTTPRedirectHandler):
    max_redirections = _MAX_REDIRECTS  # as the browser's own fetch was asked for


def _opener(proxy: str | None) -> urllib.request.OpenerDirector:
    # http(s) only: build_opener would add file:, ftp: and data: handlers, which a
    # redirect could then reach.
    opener = urllib.request.OpenerDirector()
    redirects = _Redirects()
    for handler in (urllib.request.ProxyHandler({"http": proxy, "https": proxy} if proxy else {}),
                    urllib.request.HTTPHandler(), urllib.request.HTTPSHandler(), redirects,
                    urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


def _get(url: str, bounds: Bounds, cookie: str, user_agent: str | None, proxy: str | None,
         timeout_s: float) -> Fetched:
    if urlsplit(url).scheme not in ("http", "https"):
        raise BrowserError(f"cannot download {url[:200]}: not an http(s) URL")
    headers = {"Accept-Encoding": "gzip, deflate", "Accept": "*/*"}
    if cookie:
        headers["Cookie"] = cookie
    if user_agent:
        headers["User-Agent"] = user_agent
    deadline = time.monotonic() + timeout_s
    try:
        response = _opener(proxy).open(urllib.request.Request(url, headers=headers), timeout=timeout_s)
    except urllib.error.HTTPError as error:  # 4xx, 5xx: an answer all the same
        response = error
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise BrowserError(f"could not download {url[:200]}: {exc}") from exc
    with response:
        found = {k.lower(): v for k, v in response.headers.items()}
        where = response.geturl() or url
        body = _read(response, where, found.get("content-encoding", ""), bounds, deadline)
        return Fetched(body, response.status or 0, found)


def _read(response: http.client.HTTPResponse | urllib.error.HTTPError, url: str, encoding: str,
          bounds: Bounds, deadline: float) -> bytes:
    """The body, inflated as it comes (gzip, deflate), counted against ``bounds`` chunk by chunk."""
    coding = encoding.strip().lower()
    inflater = None
    if coding in ("gzip", "x-gzip", "deflate"):
        inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib header, told apart
    parts: list[bytes] = []
    decoded = encoded = 0
    try:
        while chunk := response.read(_CHUNK):
            encoded += len(chunk)
            pieces = [chunk]
            if inflater is not None:
                pieces = []
                data = chunk
                while data:  # a bounded output each time: a bomb never inflates more than one step
                    pieces.append(inflater.decompress(data, _CHUNK))
                    data = inflater.unconsumed_tail
                    _bounded(bounds, url, decoded + sum(map(len, pieces)), encoded)
            for piece in pieces:
                decoded += len(piece)
                parts.append(piece)
            _bounded(bounds, url, decoded, encoded if inflater is not None else None)
            if time.monotonic() > deadline:
                raise BrowserError(f"could not download {url[:200]}: it took over the time bound")
    except zlib.error as exc:
        raise BrowserError(f"could not download {url[:200]}: its {coding} body is broken ({exc})") from exc
    except (OSError, http.client.HTTPException) as exc:
        raise BrowserError(f"could not download {url[:200]}: {exc}") from exc
    if inflater is not None:
        parts.append(inflater.flush())
    return b"".join(parts)


def _bounded(bounds: Bounds, url: str, decoded: int, encoded: int | None) -> None:
    why = bounds.check(url, decoded, encoded)
    if why is not None:
        raise TooLarge(why)
