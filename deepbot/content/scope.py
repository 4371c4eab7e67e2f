"""Which URLs a crawl may fetch, store and follow: its scope, checked on every hop.

By default a crawl stays on its seeds' *origins* (scheme, host and port): a page cannot
send it to another service on the same host (``:8081`` beside ``:8080``), nor to another
host. Wider scopes are asked for with ``--scope``:

- ``origin``: the seeds' origins (the default);
- ``host``: the seeds' host names, on any port and scheme;
- ``domain``: the seeds' registrable domains (``shop.example.co.uk`` →
  ``example.co.uk``, by the Public Suffix List), so ``www.`` and ``cdn.`` hosts too;
- ``any``: every http(s) URL (``include``/``exclude`` still apply).

``--allow-origin`` adds origins to any scope. A seed that redirects (``http://a`` →
``https://www.a``) brings the origin it lands on into scope, as Heritrix does with
seed redirects. ``include`` and ``exclude`` regexes apply to every URL, the final URL
of a page included: a page whose final URL is out of scope is neither stored nor
followed, wherever a redirect, a script or a form sent the browser.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


class ScopeMode(StrEnum):
    ORIGIN = "origin"
    HOST = "host"
    DOMAIN = "domain"
    ANY = "any"


@dataclass(frozen=True)
class ScopeDecision:
    keep: bool
    reason: str = "in scope"


def origin(url: str) -> str | None:
    """``scheme://host:port`` of an http(s) URL (the default port written out), or None."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    return f"{scheme}://{host}:{port or _DEFAULT_PORTS[scheme]}"


@lru_cache(maxsize=4096)
def registrable_domain(host: str) -> str:
    """The registrable domain of a host name (``a.b.example.co.uk`` → ``example.co.uk``); an
    IP address or a bare public suffix is its own."""
    host = host.lower().rstrip(".")
    return str(_suffixes().privatesuffix(host) or host)


@lru_cache(maxsize=1)
def _suffixes() -> Any:
    from publicsuffixlist import PublicSuffixList  # the bundled list, parsed once on first use

    return PublicSuffixList()


@dataclass
class Scope:
    """A crawl's scope. Not frozen: a seed's redirect widens it (``admit``)."""

    mode: ScopeMode = ScopeMode.ORIGIN
    origins: set[str] = field(default_factory=set)
    hosts: set[str] = field(default_factory=set)
    domains: set[str] = field(default_factory=set)
    include: tuple[re.Pattern[str], ...] = ()
    exclude: tuple[re.Pattern[str], ...] = ()
    allowed: frozenset[str] = frozenset()  # --allow-origin: in scope whatever the mode

    @classmethod
    def build(cls, seeds: Iterable[str], include: Iterable[str] = (), exclude: Iterable[str] = (),
              mode: ScopeMode | str = ScopeMode.ORIGIN, allow_origins: Iterable[str] = ()) -> Scope:
        scope = cls(mode=ScopeMode(mode), include=tuple(re.compile(p) for p in include),
                    exclude=tuple(re.compile(p) for p in exclude),
                    allowed=frozenset(o for o in map(origin, allow_origins) if o))
        for seed in seeds:
            scope.admit(seed)
        return scope

    def admit(self, url: str) -> None:
        """Bring ``url``'s origin (host, domain) into scope: a seed, or where a seed landed."""
        found = origin(url)
        if found is None:
            return
        self.origins.add(found)
        host = found.split("://", 1)[1].rsplit(":", 1)[0]
        self.hosts.add(host)
        if self.mode is ScopeMode.DOMAIN:
            self.domains.add(registrable_domain(host.strip("[]")))

    def decide(self, url: str) -> ScopeDecision:
        found = origin(url)
        if found is None:
            return ScopeDecision(False, "scheme")
        if found not in self.allowed and not self._on_site(found):
            return ScopeDecision(False, "off-site")
        if self.include and not any(p.search(url) for p in self.include):
            return ScopeDecision(False, "not included")
        if any(p.search(url) for p in self.exclude):
            return ScopeDecision(False, "excluded")
        return ScopeDecision(True)

    def _on_site(self, found: str) -> bool:
        if self.mode is ScopeMode.ANY:
            return True
        if self.mode is ScopeMode.ORIGIN:
            return found in self.origins
        host = found.split("://", 1)[1].rsplit(":", 1)[0]
        if self.mode is ScopeMode.HOST:
            return host in self.hosts
        return host in self.hosts or registrable_domain(host.strip("[]")) in self.domains
