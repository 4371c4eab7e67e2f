"""A small threaded web server for local sites: the demo shops, and the test fixtures.

Sites register handlers on an :class:`App`. A :class:`SiteServer` serves one App on
127.0.0.1 (a free port by default) in a background thread, with a log of the requests
it answered; ``deepbot demo`` serves the shops of this package, and the tests serve
the fixture sites of the checkout (``fixtures/``) the same way.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http import cookies as http_cookies
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    form: dict[str, list[str]]
    headers: dict[str, str]
    cookies: dict[str, str]
    params: dict[str, str] = field(default_factory=dict)  # regex groups of the route
    server: SiteServer | None = None

    def arg(self, name: str, default: str = "") -> str:
        """First value of a query or form parameter."""
        values = self.form.get(name) or self.query.get(name)
        return values[0] if values else default


@dataclass
class Response:
    body: bytes | str = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (slow pages)

    @classmethod
    def json(cls, data: Any, status: int = 200) -> Response:
        return cls(json.dumps(data), status, "application/json")

    @classmethod
    def redirect(cls, location: str, status: int = 302) -> Response:
        return cls(b"", status, headers={"Location": location})


Handler = Callable[[Request], Response]


class App:
    """Routes a path (a full-match regex) and method to a handler."""

    def __init__(self) -> None:
        self._routes: list[tuple[re.Pattern[str], frozenset[str], Handler]] = []

    def route(self, pattern: str, methods: tuple[str, ...] = ("GET", "HEAD")) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self._routes.append((re.compile(pattern), frozenset(methods), handler))
            return handler

        return register

    def resolve(self, method: str, path: str) -> tuple[Handler, dict[str, str]] | None:
        for pattern, methods, handler in self._routes:
            match = pattern.fullmatch(path)
            if match and method in methods:
                return handler, match.groupdict()
        return None


class _RequestHandler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: tests read the server's hit log instead

    def _dispatch(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        form: dict[str, list[str]] = {}
        if raw and "x-www-form-urlencoded" in (self.headers.get("Content-Type") or ""):
            form = parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
        jar = http_cookies.SimpleCookie(self.headers.get("Cookie") or "")
        request = Request(
            method=self.command,
            path=parts.path,
            query=parse_qs(parts.query, keep_blank_values=True),
            form=form,
            headers={k.lower(): v for k, v in self.headers.items()},
            cookies={k: m.value for k, m in jar.items()},
            server=self.server.owner,
        )
        self.server.owner.record(request)
        response = self._respond(request)
        if response.delay:
            time.sleep(response.delay)
        body = response.body.encode() if isinstance(response.body, str) else response.body
        try:
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in response.headers.items():
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser gave up (timeouts are part of the fixtures)

    def _respond(self, request: Request) -> Response:
        found = self.server.owner.app.resolve(request.method, request.path)
        if found is not None:
            handler, params = found
            return handler(Request(**{**request.__dict__, "params": params}))
        static = _static_file(self.server.owner.static_root, request.path)
        if static is not None and request.method in ("GET", "HEAD"):
            return static
        return Response("<html><body><h1>Not found</h1></body></html>", 404)

    do_GET = do_POST = do_HEAD = _dispatch


_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css",
    ".js": "application/javascript",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".pdf": "application/pdf",
    ".png": "image/png",
}


def _static_file(root: Path | None, path: str) -> Response | None:
    if root is None:
        return None
    target = (root / path.lstrip("/")).resolve()
    if target.is_dir():
        target = target / "index.html"
    if not target.is_relative_to(root.resolve()) or not target.is_file():
        return None
    return Response(target.read_bytes(), content_type=_TYPES.get(target.suffix, "application/octet-stream"))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: SiteServer


Mount = Callable[[App, dict[str, Any]], None]


class SiteServer:
    """Serves the sites ``mount`` puts on an App, on 127.0.0.1 at a free port, in a thread.

    ``options`` reach the site modules (e.g. ``{"robots": "503"}`` makes robots.txt
    answer 503), so one test can run a misbehaving host beside a normal one. Paths no
    route answers are looked up under ``static_root``, if given.
    """

    def __init__(self, mount: Mount, host: str = "127.0.0.1", port: int = 0,
                 options: dict[str, Any] | None = None, static_root: Path | None = None):
        self.options = dict(options or {})
        self.app = App()
        mount(self.app, self.options)
        self.static_root = static_root
        self._httpd = _Server((host, port), _RequestHandler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.hits: list[tuple[str, str]] = []  # (method, path?query) in arrival order

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + (path if path.startswith("/") else "/" + path)

    def record(self, request: Request) -> None:
        query = "&".join(f"{k}={v}" for k, vs in request.query.items() for v in vs)
        with self._lock:
            self.hits.append((request.method, request.path + ("?" + query if query else "")))

    def hits_for(self, path: str) -> int:
        with self._lock:
            return sum(1 for _, p in self.hits if p.split("?")[0] == path)

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="sites", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
