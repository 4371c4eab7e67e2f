"""The Route Manager's contract: one protocol every backend implements.

A route moves through four states::

    push ──► queued ──lease──► leased ──ack_done──► done
               ▲                 │
               │                 ├─ack_failed(retry) / release / expiry──► queued (maybe delayed)
               │                 └─ack_failed(no retry, or attempts used up)──► failed
               └─────────────────┘

A queued route may carry a ``not_before`` time (retry backoff, politeness); it is
counted as queued but not leased until that time has passed. Every lease has a
token; an ack whose token is not the route's current one (its lease expired and
the route was leased again), or whose route is already done or failed, changes
nothing and returns None. Otherwise an ack returns the state the route is now in.

Time is wall-clock seconds (``time.time()``) because leases and backoffs must
survive a restart of the process.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

from deepbot.routes import Route, SessionState


class RouteState(StrEnum):
    QUEUED = "queued"
    LEASED = "leased"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Lease:
    """A route handed to one worker until ``expires_at`` (wall-clock seconds)."""

    route: Route
    id: int  # the store's row id of the route
    token: int  # which lease of this route this is; stale tokens are refused
    attempt: int  # 1 on the first try, 2 on the first retry, ...
    worker: str
    expires_at: float


@dataclass(frozen=True, slots=True)
class RouteRecord:
    """What the store knows about one route (for status and tests)."""

    route: Route
    state: RouteState
    attempts: int  # unsuccessful tries so far (failed acks and expired leases)
    not_before: float
    reason: str | None  # why it failed, when it did


@runtime_checkable
class RouteStore(Protocol):
    """The frontier: routes on durable storage, leased to workers.

    Calls are short and blocking; an asyncio caller may make them directly or via
    ``asyncio.to_thread``. Implementations are safe to call from several threads.
    """

    max_attempts: int

    def put_session(self, state: SessionState) -> str:
        """Store a session snapshot once (by digest) and return its digest."""
        ...

    def get_session(self, digest: str) -> SessionState:
        """The snapshot with this digest; StoreError if there is none."""
        ...

    def push(self, routes: Iterable[Route]) -> int:
        """Queue routes whose key was never seen, in one transaction; return how many."""
        ...

    def lease(self, n: int, worker: str, ttl_s: float) -> list[Lease]:
        """Up to n ready routes, highest priority first, then first in first out."""
        ...

    def ack_done(self, lease: Lease) -> RouteState | None:
        """The route succeeded: DONE, or None (nothing changed) if the lease is stale."""
        ...

    def ack_failed(
        self, lease: Lease, reason: str, *, retry: bool, backoff_s: float = 0.0
    ) -> RouteState | None:
        """The try failed: QUEUED again after ``backoff_s`` if ``retry`` and attempts
        remain (``max_attempts`` tries in all), else FAILED with ``reason``."""
        ...

    def release(self, lease: Lease, delay_s: float = 0.0) -> RouteState | None:
        """Give the route back untried (no attempt counted), ready after ``delay_s``."""
        ...

    def expire(self) -> int:
        """Requeue routes whose lease has expired; return how many. lease() does it too."""
        ...

    def reset_leases(self, worker: str | None = None) -> int:
        """Requeue now, without counting an attempt, the leases of ``worker`` or, if
        None, every lease this process holds (a clean shutdown)."""
        ...

    def recover(self) -> int:
        """Requeue now the leases held by processes known to be dead; return how many."""
        ...

    def counts(self) -> dict[RouteState, int]:
        """Routes per state (every state present, zero included)."""
        ...

    def failures(self) -> dict[str, int]:
        """Failed routes per reason."""
        ...

    def pending(self) -> int:
        """Routes not finished yet: queued (delayed included) plus leased."""
        ...

    def seen(self, key: str) -> bool:
        """Whether a route with this key was ever pushed."""
        ...

    def get(self, key: str) -> RouteRecord | None:
        """The route with this key and its state, if it was pushed."""
        ...

    def raise_priority(self, keys: Iterable[str], priority: float) -> int:
        """Give queued routes with these keys ``priority`` where theirs is lower (a priority
        policy that learned more since they were pushed); return how many changed."""
        ...

    def claim_page(self, identity: str, key: str) -> bool:
        """Record that route ``key`` reached the page ``identity`` (a page_identity());
        True if no other route had, so this route is the one to store it. The claim is
        durable: a resumed crawl, or a retry of the same route, sees it."""
        ...

    def know_forms(self, identities: Iterable[str]) -> None:
        """Record forms (forms.identity) a committed visit analysed: no page that shows one
        of them again, in this crawl or a resumed one, has it analysed or queried again."""
        ...

    def known_forms(self, identities: Iterable[str]) -> set[str]:
        """Which of these forms know_forms() recorded."""
        ...

    def put_state(self, name: str, value: str) -> None:
        """Keep what a crawl's link policy has learned (a structure crawl's site model)
        under ``name``, replacing what was there: a resumed crawl goes on from it."""
        ...

    def get_state(self, name: str) -> str | None:
        """What put_state() kept under ``name``, if anything."""
        ...

    def close(self) -> None: ...
