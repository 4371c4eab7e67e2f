"""Peak memory of one hostile route against a normal page's: ``python bench/hostile.py``.

    python bench/hostile.py                      # every probe, once
    python bench/hostile.py --only normal,page-400m,download-bomb-1m --json
    python bench/hostile.py --limit-mb 3000      # the tree is killed past this (default 3000 MB)

Each probe is one ``deepbot crawl`` of one seed (depth 0, one worker, no robots.txt)
served by a small server on 127.0.0.1 in this process, run as a fresh subprocess and
measured like the other benchmarks (``common.measure``: the whole process tree, Chromium
included, peak RSS and PSS). A watchdog kills the tree when its RSS passes ``--limit-mb``,
so a probe that would take the machine's memory is reported as ``killed`` at that size
instead. The bodies are generated as they are sent: nothing large is held here.

Probes:

- ``normal``: a 30 KB HTML page, the yardstick.
- ``page-bomb-1m``, ``page-bomb-300k``: a gzip of zeros (1 MB, 300 KB; ~1 GB and ~300 MB
  once inflated) as ``text/plain``, a type the browser shows.
- ``download-bomb-1m``, ``download-bomb-300k``: the same as ``application/octet-stream``,
  which the browser hands to its download manager (the crawl then fetches it itself).
- ``page-400m``, ``download-400m``: a plain 400 MB body, shown and downloaded.
- ``subresource-400m``, ``subresource-bomb-1m``: an HTML page whose script fetches those.
- ``frame-400m``: an HTML page whose iframe, of another site (``localhost``, not
  ``127.0.0.1``), is ``subresource-400m``'s page; run with full Chromium (``DEEPBOT_CHROMIUM``),
  which puts a frame of another site in a process of its own (the headless shell does not).
- ``worker-400m``, ``sharedworker-400m``: an HTML page whose dedicated or shared worker
  fetches the 400 MB body (the page's load event waits 3 s for a slow script meanwhile,
  as a real page's may).
- ``reload``, ``refresh``, ``relocate``: a page that navigates by itself (``location.reload()``
  after 100 ms, a meta refresh of 0 s, ``location = …`` every 100 ms); the server counts
  its requests (``requests``: every request the probe's server answered).

A route's outcome is read from the crawl's ``--json`` summary: the failure reason, pages stored.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import signal
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil
from common import become_subreaper, measure, parse_only

_MB = 1 << 20
_CHUNK = 256 * 1024


@functools.cache
def _bomb(size: str) -> bytes:
    """Made when a probe first asks for it: a gigabyte of zeros takes seconds to compress."""
    return gzip_of_zeros({"1m": _MB, "300k": 300 * 1024}[size])


def gzip_of_zeros(size: int) -> bytes:
    """A gzip member of zeros about ``size`` bytes long (~1030 bytes inflated per byte)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(_MB)
    parts: list[bytes] = []
    total = 0
    while total < size - 2048:
        part = packer.compress(block)
        parts.append(part)
        total += len(part)
    parts.append(packer.flush())
    return b"".join(parts)


_NORMAL = ("<!doctype html><html><head><title>normal</title></head><body><h1>A normal page</h1>"
           + "".join(f"<p>Paragraph {n}: {'lorem ipsum dolor sit amet ' * 10}</p>" for n in range(100))
           + "</body></html>").encode()


def _fetching(target: str) -> bytes:
    return (f"<!doctype html><html><head><title>fetches</title></head><body><h1>fetches {target}</h1>"
            f"<script>fetch('{target}').then((r) => r.arrayBuffer()).catch(() => 0)</script>"
            "</body></html>").encode()


_SELF = {  # pages that navigate by themselves, over and over
    "/reload": b"<script>setTimeout(() => location.reload(), 100)</script>",
    "/refresh": b'<meta http-equiv="refresh" content="0">',
    "/relocate": b"<script>setInterval(() => { location = '/relocate?' + Date.now() }, 100)</script>",
}


_WORKER_JS = b"fetch('/blob-400m').then((r) => r.arrayBuffer()).catch(() => 0)"
_SHARED_JS = b"onconnect = () => " + _WORKER_JS
_FULL_CHROMIUM = "/usr/bin/chromium"  # site isolation on, unlike the headless shell DeepBot prefers


def _elsewhere(port: int, kind: str) -> bytes:
    """A page that loads 400 MB outside its own renderer's main thread: in an iframe of another
    site, or from a dedicated or shared worker."""
    if kind == "frame":
        what = f"<iframe src='http://localhost:{port}/subresource-400m'></iframe>"
    elif kind == "worker":
        what = "<script>new Worker('/worker.js')</script><script src='/slow.js'></script>"
    else:
        what = "<script>new SharedWorker('/shared.js').port.start()</script><script src='/slow.js'></script>"
    return (f"<!doctype html><html><head><title>{kind}</title></head><body><h1>a {kind}</h1>{what}"
            "</body></html>").encode()


def _self_navigating(path: str) -> bytes:
    return (f"<!doctype html><html><head><title>{path}</title></head><body><h1>{path}</h1>".encode()
            + _SELF[path] + b"</body></html>")


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a crawler that gives a body up resets its connection: that is the point


class ProbeServer:
    """The probes' answers on 127.0.0.1, with a count of the requests of each path."""

    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                owner.hits[path] = owner.hits.get(path, 0) + 1
                with contextlib.suppress(OSError):
                    owner.answer(self, path)

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}{path}"

    def answer(self, handler: BaseHTTPRequestHandler, path: str) -> None:
        kind = path.strip("/").split("-")
        if path == "/normal":
            self._send(handler, "text/html", [_NORMAL])
        elif path in _SELF:
            self._send(handler, "text/html", [_self_navigating(path)])
        elif kind[0] in ("frame", "worker", "sharedworker"):
            self._send(handler, "text/html", [_elsewhere(self._httpd.server_address[1], kind[0])])
        elif path in ("/worker.js", "/shared.js"):
            self._send(handler, "text/javascript", [_WORKER_JS if path == "/worker.js" else _SHARED_JS])
        elif path == "/slow.js":
            time.sleep(3)
            self._send(handler, "text/javascript", [b""])
        elif kind[0] == "subresource":
            self._send(handler, "text/html", [_fetching("/blob-" + "-".join(kind[1:]))])
        elif kind[0] in ("page", "download", "blob") and kind[1] == "bomb":
            ctype = "text/plain" if kind[0] == "page" else "application/octet-stream"
            self._send(handler, ctype, [_bomb(kind[2])], encoding="gzip")
        elif kind[0] in ("page", "download", "blob") and kind[1] == "400m":
            ctype = "text/plain" if kind[0] == "page" else "application/octet-stream"
            self._send(handler, ctype, _plain(400 * _MB), length=400 * _MB)
        else:
            handler.send_response(404)
            handler.send_header("Content-Length", "0")
            handler.end_headers()

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, ctype: str, body: Any, *, length: int | None = None,
              encoding: str | None = None) -> None:
        parts = list(body) if length is None else body
        handler.send_response(200)
        handler.send_header("Content-Type", ctype)
        if encoding:
            handler.send_header("Content-Encoding", encoding)
        handler.send_header("Content-Length", str(length if length is not None else sum(map(len, parts))))
        handler.end_headers()
        for part in parts:
            handler.wfile.write(part)

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _plain(size: int) -> Iterator[bytes]:
    line = b"all work and no play makes a crawler dull " * 6 + b"\n"
    block = line * (_CHUNK // len(line))
    sent = 0
    while sent < size:
        part = block[: size - sent]
        sent += len(part)
        yield part


PROBES = ("normal", "page-bomb-1m", "page-bomb-300k", "download-bomb-1m", "download-bomb-300k",
          "page-400m", "download-400m", "subresource-400m", "subresource-bomb-1m",
          "frame-400m", "worker-400m", "sharedworker-400m", "reload", "refresh", "relocate")


class _Watchdog(threading.Thread):
    """Kills this process's descendants when their RSS, summed, passes ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        super().__init__(daemon=True)
        self.limit = limit
        self.killed = False
        self._done = threading.Event()

    def run(self) -> None:
        me = psutil.Process()
        while not self._done.is_set():
            children = me.children(recursive=True)
            total = 0
            for child in children:
                with contextlib.suppress(psutil.Error):
                    total += child.memory_info().rss
            if total > self.limit:
                self.killed = True
                for child in children:
                    with contextlib.suppress(psutil.Error):
                        child.send_signal(signal.SIGKILL)
            self._done.wait(0.05)

    def stop(self) -> None:
        self._done.set()
        self.join(2)


def run_probe(server: ProbeServer, probe: str, *, limit_mb: int, time_limit: float, logs: Path,
              python: str) -> dict[str, Any]:
    server.hits.clear()
    with tempfile.TemporaryDirectory(prefix="deepbot-hostile-") as tmp:
        store = Path(tmp) / "store.sqlite"
        summary = Path(tmp) / "summary.json"
        cmd = [python, "-m", "deepbot", "crawl", "--seed", server.url(f"/{probe}"), "--store", str(store),
               "--depth", "0", "--workers", "1", "--ignore-robots", "--no-block-private", "--json"]
        env = dict(os.environ, DEEPBOT_CHROMIUM=_FULL_CHROMIUM) if probe.startswith("frame") else None
        watchdog = _Watchdog(limit_mb * _MB)
        watchdog.start()
        try:
            m = measure(cmd, timeout=time_limit, env=env, stdout=summary, stderr=logs / f"{probe}.log")
        finally:
            watchdog.stop()
        said = _summary(summary)
        failures = said.get("failures") or {}
        reason = next(iter(failures), "") if isinstance(failures, dict) else ""
        reason = reason or _reason(logs / f"{probe}.log")
    return {
        "probe": probe, "exit": m.returncode, "killed": watchdog.killed, "timed_out": m.timed_out,
        "wall_s": round(m.wall_s, 1), "peak_rss_mb": round(m.peak_rss_mb),
        "peak_pss_mb": round(m.peak_pss_mb),
        "stored": said.get("documents_stored"), "failed": said.get("routes_failed"), "reason": reason,
        "requests": sum(server.hits.values()),
    }


def _summary(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
        start = text.find("{")
        found = json.loads(text[start:]) if start >= 0 else {}
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _reason(log: Path) -> str:
    """What the crawl said of its failed route (its "failed URL: reason" line), if it said it."""
    with contextlib.suppress(OSError):
        for line in log.read_text(errors="replace").splitlines():
            if "failed http" in line:
                return line.split(": ", 1)[-1].strip()
    return ""


def table(rows: list[dict[str, Any]]) -> str:
    normal = next((r["peak_pss_mb"] for r in rows if r["probe"] == "normal"), None)
    lines = ["| probe | outcome | requests | peak RSS MB | peak PSS MB | × normal (PSS) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        if r["killed"]:
            outcome = "killed by the watchdog"
        elif r["timed_out"]:
            outcome = "timed out"
        elif r["failed"]:
            outcome = f"failed: {r['reason'][:70]}"
        else:
            outcome = f"exit {r['exit']}, stored {r['stored']}"
        ratio = f"{r['peak_pss_mb'] / normal:.2f}" if normal else "-"
        lines.append(f"| {r['probe']} | {outcome} | {r['requests']} | {r['peak_rss_mb']} "
                     f"| {r['peak_pss_mb']} | {ratio} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None, *, on_row: Callable[[dict[str, Any]], None] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="probes, comma-separated: " + ",".join(PROBES))
    parser.add_argument("--limit-mb", type=int, default=3000, help="kill the crawl's tree past this RSS")
    parser.add_argument("--time-limit", type=float, default=90.0, help="seconds a probe may run")
    parser.add_argument("--python", default=sys.executable,
                        help="the Python that runs deepbot (another checkout's venv: its code, "
                        "before a change)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON, not a table")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "hostile")
    args = parser.parse_args(argv)
    probes = parse_only(parser, args.only, PROBES, "probe")
    args.out.mkdir(parents=True, exist_ok=True)
    become_subreaper()
    server = ProbeServer()
    rows = []
    try:
        for probe in probes:
            started = time.monotonic()
            row = run_probe(server, probe, limit_mb=args.limit_mb, time_limit=args.time_limit, logs=args.out,
                            python=args.python)
            rows.append(row)
            if on_row is not None:
                on_row(row)
            print(f"{probe}: {time.monotonic() - started:.0f} s", file=sys.stderr)
    finally:
        server.close()
    print(json.dumps(rows, indent=1) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
