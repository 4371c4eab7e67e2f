"""Egress control: a crawled page cannot turn the browser against the crawler's own network.

With ``--block-private``, Chromium reaches the web only through ``EgressProxy``, a small
HTTP proxy on 127.0.0.1 that DeepBot runs. For every connection (a page, a redirect, a
script's fetch, an image, a form's submission, a popup) it resolves the host itself,
checks the *address* it resolved, and connects to that same address: a name whose DNS
answer changes between a check and a connection (DNS rebinding) gets nothing more.

Refused: every address that is not globally routable (``ipaddress``'s ``is_global``):
loopback, private (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud metadata
address 169.254.169.254, fe80::/10), shared CGNAT space (100.64/10), multicast,
reserved and unspecified addresses, and IPv4-mapped IPv6 forms of them. The seeds' own
origins (host and port) stay allowed, so a crawl of an intranet site can still be asked
for explicitly.

Plain HTTP requests are forwarded one per connection (``Connection: close``); HTTPS goes
through a CONNECT tunnel the proxy cannot read, to the checked address. A refused
connection is answered ``403`` with ``X-DeepBot-Egress: blocked``, and recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from deepbot.errors import ConfigError

log = logging.getLogger("deepbot.egress")

_HEAD_LIMIT = 64 * 1024  # bytes of a request's head
_HEAD_TIMEOUT_S = 30.0
_CONNECT_TIMEOUT_S = 15.0
_CHUNK = 64 * 1024
_HOP_BY_HOP = ("proxy-connection", "proxy-authorization", "connection", "keep-alive")
BLOCKED_HEADER = "X-DeepBot-Egress"


def refusal(address: str) -> str | None:
    """Why an IP address is off limits, or None when it is a public one."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # fe80::1%eth0: the zone is no part of it
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (cloud metadata lives there)"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_unspecified:
        return "the unspecified address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in ipaddress.IPv4Network("100.64.0.0/10"):
        return "a shared (CGNAT) address"
    if ip.is_private:
        return "a private address"
    if not ip.is_global:
        return "a reserved address"
    return None


@dataclass(frozen=True)
class Blocked:
    host: str
    port: int
    address: str
    reason: str

    def __str__(self) -> str:
        return f"{self.host}:{self.port} ({self.address}) is {self.reason}"


class EgressProxy:
    """The proxy Chromium goes through with ``--block-private``: ``async with`` it, then
    launch Chromium with ``chromium_args()``."""

    def __init__(self, allowed_origins: tuple[tuple[str, int], ...] = (), *,
                 max_blocked_kept: int = 1000) -> None:
        self.allowed = frozenset((host.lower(), port) for host, port in allowed_origins)
        self.blocked: list[Blocked] = []  # the first max_blocked_kept refusals, for the summary
        self.blocked_count = 0
        self._keep = max_blocked_kept
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        return int(self._server.sockets[0].getsockname()[1])

    def chromium_args(self) -> tuple[str, ...]:
        # <-loopback>: Chromium would otherwise reach 127.0.0.1 and localhost directly.
        return (f"--proxy-server=http://127.0.0.1:{self.port}", "--proxy-bypass-list=<-loopback>")

    async def start(self) -> EgressProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=_HEAD_LIMIT)
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> EgressProxy:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def resolve(self, host: str, port: int) -> tuple[str | None, Blocked | None]:
        """The address to connect to, or why not. A seed's own origin is not checked."""
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            return None, None  # no such host: the browser reports it as such
        address = str(infos[0][4][0])
        if (host.lower(), port) in self.allowed:
            return address, None
        for info in infos:  # every address the name has: a mixed answer is refused whole
            why = refusal(str(info[4][0]))
            if why is not None:
                return None, Blocked(host, port, str(info[4][0]), why)
        return address, None

    def _note(self, blocked: Blocked) -> None:
        self.blocked_count += 1
        if len(self.blocked) < self._keep:
            self.blocked.append(blocked)
        log.info("egress refused: %s", blocked)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._handle(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            pass  # a client or server that went away or spoke garbage: this connection ends
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT_S)
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ", 2)
        if method.upper() == "CONNECT":
            host, _, port_text = target.rpartition(":")
            host, port = host.strip("[]"), int(port_text)
        else:
            parts = urlsplit(target)
            if parts.scheme != "http" or not parts.hostname:
                await _answer(writer, 400, "DeepBot's proxy forwards http:// URLs only")
                return
            host, port = parts.hostname, parts.port or 80
        address, blocked = await self.resolve(host, port)
        if blocked is not None:
            self._note(blocked)
            await _answer(writer, 403, f"DeepBot refused to connect: {blocked} (--block-private)")
            return
        if address is None:
            await _answer(writer, 502, f"DeepBot's proxy could not resolve {host}")
            return
        upstream_reader, upstream_writer = await asyncio.wait_for(
            asyncio.open_connection(address, port, limit=_CHUNK), _CONNECT_TIMEOUT_S)
        try:
            if method.upper() == "CONNECT":
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                await writer.drain()
            else:
                upstream_writer.write(_forwarded_head(method, target, version, lines[1:]))
                await upstream_writer.drain()
            await _pipe_both(reader, writer, upstream_reader, upstream_writer)
        finally:
            upstream_writer.close()
            with contextlib.suppress(Exception):
                await upstream_writer.wait_closed()


def _forwarded_head(method: str, target: str, version: str, header_lines: list[str]) -> bytes:
    parts = urlsplit(target)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kept = [line for line in header_lines
            if line and line.split(":", 1)[0].strip().lower() not in _HOP_BY_HOP]
    return (f"{method} {path} {version}\r\n" + "".join(f"{line}\r\n" for line in kept)
            + "Connection: close\r\n\r\n").encode("latin-1")


async def _answer(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    body = text.encode()
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
    said = "blocked" if status == 403 else "error"
    writer.write(f"HTTP/1.1 {status} {reason}\r\n{BLOCKED_HEADER}: {said}\r\n"
                 f"Content-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
                 "Connection: close\r\n\r\n".encode() + body)
    await writer.drain()


async def _pipe_both(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter,
                     server_reader: asyncio.StreamReader, server_writer: asyncio.StreamWriter) -> None:
    async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while chunk := await source.read(_CHUNK):
                sink.write(chunk)
                await sink.drain()
        finally:
            with contextlib.suppress(Exception):
                sink.write_eof()

    up = asyncio.ensure_future(pipe(client_reader, server_writer))
    down = asyncio.ensure_future(pipe(server_reader, client_writer))
    try:
        await down  # the answer is what matters: when it ends, the exchange is over
    finally:
        up.cancel()
        await asyncio.gather(up, return_exceptions=True)


async def blocks_private(setting: bool | None, seeds: Sequence[str], proxy: str | None) -> bool:
    """Whether a crawl runs behind the egress proxy. ``setting`` is --block-private (None: not
    given): unset, it is on when every seed's host resolves to public addresses only, so a
    crawl of a public site is protected by default and one of an intranet is not refused."""
    if setting is False:
        return False
    if proxy is not None:
        if setting:
            raise ConfigError("--block-private and --proxy: DeepBot cannot check where the proxy connects; "
                              "leave that to the proxy, or drop --proxy")
        return False
    if setting:
        return True
    loop = asyncio.get_running_loop()
    for seed in seeds:
        host = urlsplit(seed).hostname
        if not host:
            continue
        try:
            infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except OSError:
            continue  # unresolvable now: it proves nothing either way
        if any(refusal(str(info[4][0])) for info in infos):
            return False
    return True
