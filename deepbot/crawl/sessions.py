"""Saved sessions: a crawl that starts logged in.

A session file is Playwright's ``storage_state`` JSON (cookies, and each origin's
localStorage), as ``deepbot login`` writes it, or ``playwright codegen
--save-storage=FILE`` after a person logs in by hand, or ``context.storage_state(path=…)``
in a script. ``deepbot crawl --session FILE`` gives it to the seeds; every route after
them carries the session its page left (routes.SessionState), so the whole crawl stays
logged in for as long as the site keeps the session alive.

``deepbot login PROGRAM.nseql --save FILE`` runs an NSEQL program (navigate, fill,
click) in a fresh browser and saves the session it ends with. ``${NAME}`` in the
program is replaced by the environment variable NAME, so a password need not be
written in the file.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

import nseql
from deepbot.config.yamlfile import load_model
from deepbot.crawl.politeness import host_key
from deepbot.errors import ConfigError
from deepbot.routes import EMPTY_SESSION, PageSnapshot, Route, SessionState, Via, canonical_url

log = logging.getLogger("deepbot.crawl")


class SessionStore(Protocol):
    """Where session snapshots are kept by digest: the frontier's part of RouteStore."""

    def put_session(self, state: SessionState) -> str: ...

    def get_session(self, digest: str) -> SessionState: ...


class _Cookie(BaseModel):
    # What Playwright's add_cookies needs; the other fields it writes are kept as they are.
    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    value: str
    domain: str | None = None
    path: str | None = None
    url: str | None = None
    expires: float = -1
    httpOnly: bool = False
    secure: bool = False
    sameSite: Literal["Strict", "Lax", "None"] = "Lax"

    @model_validator(mode="after")
    def _placed(self) -> _Cookie:
        if not self.url and not self.domain:
            raise ValueError("a cookie needs a domain (with a path) or a url")
        return self


class _Origin(BaseModel):
    model_config = ConfigDict(extra="forbid")

    origin: str = Field(pattern=r"^https?://")
    localStorage: list[dict[str, str]] = []


class _SessionFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cookies: list[_Cookie] = []
    origins: list[_Origin] = []


def load_session(path: str | Path) -> SessionState:
    """A session file, validated; a ConfigError names the file, the line and the field."""
    # JSON is YAML: the YAML loader gives every error its line.
    parsed = load_model(path, _SessionFile, ConfigError, "a session file (Playwright storage_state JSON)")
    cookies = []
    for cookie in parsed.cookies:
        data = cookie.model_dump(exclude_none=True)
        if cookie.domain and not cookie.path:
            data["path"] = "/"
        cookies.append(data)
    return SessionState(cookies=tuple(cookies), origins=tuple(o.model_dump() for o in parsed.origins))


def save_session(state: SessionState, path: str | Path) -> None:
    """Write ``state`` as Playwright's storage_state JSON, readable by its owner only: its
    cookies let anyone act as the person who logged in."""
    text = json.dumps(state.to_playwright(), indent=2) + "\n"
    target = Path(path)
    # A new file beside the target (mkstemp: 0600), then renamed over it: an earlier file's
    # 0644 is not kept, a symlink at the path is replaced rather than written through, and
    # a crash leaves the old session or the new one, never half of one.
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _serves(domain: str, url: str) -> bool:
    """Whether a cookie or storage of ``domain`` is sent to, or read by, ``url``'s host."""
    host = (urlsplit(url).hostname or "").lower()
    return bool(domain) and (host == domain or host.endswith("." + domain))


def _stored_items(state: SessionState) -> set[tuple[str, str]]:
    return {(o["origin"], item["name"]) for o in state.origins for item in o.get("localStorage", ())}


def logged_into(login: SessionState, url: str) -> bool:
    """Whether the login holds something for ``url``'s host: a cookie of its domain (or a
    parent domain), or its origin's localStorage."""
    domains = {c.host for c in login.cookies}
    domains |= {(urlsplit(o["origin"]).hostname or "").lower()
                for o in login.origins if o.get("localStorage")}
    return any(_serves(d, url) for d in domains)


def dropped_login(login: SessionState, before: SessionState, after: SessionState, url: str) -> bool:
    """Whether the page at ``url`` took away some of what the login holds for its host: a
    cookie (by name, domain and path) or a localStorage item the session had before the
    page and has no more. Ending a session clears them: an expired cookie, an app's token
    dropped when its API said 401, and then the app draws its sign-in form in place."""
    ours = {c.key for c in login.cookies if _serves(c.host, url)}
    had = ours & {c.key for c in before.cookies}
    if had - {c.key for c in after.cookies}:
        return True
    items = {(origin, name) for origin, name in _stored_items(login)
             if _serves((urlsplit(origin).hostname or "").lower(), url)}
    return bool((items & _stored_items(before)) - _stored_items(after))


def relogged(session: SessionState, login: SessionState) -> SessionState:
    """``session`` with a fresh login put over it: ``login``'s cookies replace those of the
    same name, domain and path (or are added), its localStorage items those of the same
    origin and name. What else the session holds (a cart, a search) stays."""

    def items(origin: dict[str, Any]) -> dict[str, str]:
        return {item["name"]: item["value"] for item in origin.get("localStorage", ())}

    fresh = {c.key for c in login.cookies}
    cookies = (*(c for c in session.cookies if c.key not in fresh), *login.cookies)
    origins = {o["origin"]: items(o) for o in session.origins}
    for origin in login.origins:
        origins.setdefault(origin["origin"], {}).update(items(origin))
    return SessionState(cookies=cookies, origins=tuple(
        {"origin": o, "localStorage": [{"name": k, "value": v} for k, v in stored.items()]}
        for o, stored in origins.items()))


_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_variables(program: nseql.Program, source: str,
                     env: Mapping[str, str] | None = None) -> nseql.Program:
    """``${NAME}`` in the program's arguments replaced by the environment variable NAME,
    after parsing, so a value needs no quoting; a missing variable is an error."""
    values = os.environ if env is None else env
    body: list[nseql.Statement] = []
    for statement in program.body:
        changes: dict[str, Any] = {}
        for part in dataclasses.fields(statement):
            text = getattr(statement, part.name)
            if part.name == "comment" or not isinstance(text, str) or "${" not in text:
                continue
            missing = sorted({name for name in _VARIABLE.findall(text) if name not in values})
            if missing:
                raise ConfigError(f"{source}:{statement.line}: environment variable(s) not set: "
                                  f"{', '.join(missing)}")
            changes[part.name] = _VARIABLE.sub(lambda m: values[m.group(1)], text)
        body.append(dataclasses.replace(statement, **changes) if changes else statement)
    return dataclasses.replace(program, body=tuple(body))


class CrawlSession:
    """The sessions of one crawl, in one place: the login it started with (``--session``),
    a fresh login put over routes queued before it, and the hosts that logged it out.

    Every route carries its session by digest (Route.session); the store holds the
    snapshots. This object restores a route's before its visit, keeps the one a page
    leaves for its children, and tells a page that shows the login form again from one
    that only has a login form.
    """

    def __init__(self, store: SessionStore) -> None:
        self._store = store
        self.login: SessionState | None = None  # what the crawl logged in with
        self.start: str | None = None  # its digest: where seeds and form queries start
        # A fresh login given to a crawl that began with another (or none): put over the
        # sessions of routes queued before this run (not those this run made: _fresh).
        self._relogin: SessionState | None = None
        self._fresh: set[str] = set()
        self._ended: set[str] = set()  # hosts whose pages showed the login form again

    def log_in(self, login: SessionState) -> str:
        """Start from ``login``; its digest."""
        self.login = login
        self.start = self._store.put_session(login)
        return self.start

    def resume(self, earlier: Iterable[str | None]) -> None:
        """The seeds were queued by an earlier run in ``earlier`` sessions: if that was
        another, the routes it queued get this run's login."""
        if self.login is not None and set(earlier) - {self.start}:
            self._relogin = self.login
            log.info("a new session for a crawl that began with another: queued routes get its login")

    def restore(self, route: Route) -> SessionState:
        """The session ``route`` runs in."""
        session = self._store.get_session(route.session) if route.session else EMPTY_SESSION
        if self._relogin is not None and route.session not in self._fresh:
            session = relogged(session, self._relogin)
        return session

    def keep(self, session: SessionState) -> str | None:
        """Store the session a page left (for its children); its digest, None if empty."""
        digest = None if session.empty else self._store.put_session(session)
        if self._relogin is not None and digest is not None:
            self._fresh.add(digest)
        return digest

    def logged_out(self, route: Route, before: SessionState, snap: PageSnapshot) -> bool:
        """Whether the page shows that the site ended the crawl's login: sent to the login
        form, or shown one in place by a page that dropped the login's cookie or token."""
        login = self.login
        return (login is not None and snap.login_form and logged_into(login, snap.url)
                and (not _asked_for(route, snap) or dropped_login(login, before, snap.session, snap.url)))

    def end(self, url: str) -> None:
        """``url``'s host logged the crawl out: none of its pages is visited again in this run."""
        self._ended.add(host_key(url))

    def ended(self, url: str) -> bool:
        return host_key(url) in self._ended


def _asked_for(route: Route, snap: PageSnapshot) -> bool:
    """Whether the route went to the page it shows on purpose: a link to it, not redirected."""
    return route.via in (Via.SEED, Via.LINK) and canonical_url(snap.url) == canonical_url(route.url)


def secret_values(program_text: str, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The values ``${NAME}`` brings into a program (longest first): what every message,
    log line and NSEQL dump about that program must mask."""
    values = os.environ if env is None else env
    found = {values[name] for name in _VARIABLE.findall(program_text) if values.get(name)}
    return tuple(sorted(found, key=len, reverse=True))


def masked(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with every secret value, raw or as NSEQL quotes it, replaced by ``***``."""
    for secret in secrets:
        quoted = nseql.dump(nseql.Program.of(nseql.Fill("#x", secret))).split(" ", 2)[2].strip()
        text = text.replace(quoted[1:-1], "***").replace(secret, "***")
    return text
