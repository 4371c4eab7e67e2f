"""A small hostile server on 127.0.0.1: each test gives it the answers it needs."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

Answer = Callable[[BaseHTTPRequestHandler], None]


class Hostile:
    def __init__(self) -> None:
        self.routes: dict[str, Answer] = {}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                answer = owner.routes.get(self.path.split("?")[0])
                if answer is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                answer(self)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    server = Hostile()
    yield server
    server.close()


def redirect(location: str) -> Answer:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


def html(body: str, *, head: str = "", hits: list[float] | None = None) -> Answer:
    """An HTML page; the time of each request for it is appended to ``hits``, if given."""
    data = f"<!doctype html><html><head>{head}<title>t</title></head><body>{body}</body></html>".encode()
    return served(data, "text/html", hits=hits)


def served(data: bytes, ctype: str, *, hits: list[float] | None = None) -> Answer:
    """``data`` as ``ctype``; the time of each request for it is appended to ``hits``, if given."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        if hits is not None:
            hits.append(time.monotonic())
        handler.send_response(200)
        handler.send_header("Content-Type", ctype)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    return answer


def deepbot(*args: str, cwd: Path, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """``deepbot ARGS`` as a user runs it."""
    return subprocess.run([sys.executable, "-m", "deepbot", *args], capture_output=True, text=True,
                          timeout=timeout, check=False, cwd=cwd)


def one_clear_line(done: subprocess.CompletedProcess[str]) -> str:
    """The run failed with exit 1 and one line of error, no traceback; that line."""
    assert done.returncode == 1, (done.returncode, done.stdout[-1500:], done.stderr[-1500:])
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    return lines[0]
