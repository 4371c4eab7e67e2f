"""The RouteStore contract, run against every backend in conftest.BACKENDS.

Timing assertions only ever wait for something to *become* available (a short
backoff passing), never for it to stay unavailable for a short time, so a slow,
shared machine makes these tests slower, not flaky.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deepbot.errors import StoreError
from deepbot.frontier import Lease, RouteState, RouteStore
from deepbot.routes import SessionState

from .backends import Backend, link

QUEUED, LEASED, DONE, FAILED = RouteState


def keys(leases: list[Lease]) -> list[str]:
    return [lease.route.key for lease in leases]


def state_of(store: RouteStore, key: str) -> RouteState:
    record = store.get(key)
    assert record is not None
    return record.state


# -- push and dedupe --------------------------------------------------------------


def test_push_counts_only_new_keys(store: RouteStore) -> None:
    assert store.push([link(1), link(2), link(1)]) == 2  # a duplicate inside the batch
    assert store.push([link(2), link(3)]) == 1
    assert store.push([]) == 0
    assert store.counts() == {QUEUED: 3, LEASED: 0, DONE: 0, FAILED: 0}
    assert store.pending() == 3
    assert store.seen(link(3).key) and not store.seen(link(4).key)


def test_a_finished_route_is_never_queued_again(store: RouteStore) -> None:
    store.push([link(1)])
    [lease] = store.lease(1, "w", ttl_s=60)
    store.ack_done(lease)
    assert store.push([link(1)]) == 0
    assert store.lease(1, "w", ttl_s=60) == []


def test_get_returns_the_route_as_pushed(store: RouteStore) -> None:
    route = link(7, priority=2.5).model_copy(update={"query": {"title": "Dune"}, "session": "abc"})
    store.push([route])
    record = store.get(route.key)
    assert record is not None
    assert (record.route, record.state, record.attempts, record.reason) == (route, QUEUED, 0, None)
    assert store.get("http://site.test/missing") is None


# -- lease order ------------------------------------------------------------------


def test_lease_takes_highest_priority_first_then_fifo(store: RouteStore) -> None:
    store.push([link("a", 0), link("b", 1), link("c", 0), link("d", 5), link("e", 1), link("f", -1)])
    order = [keys(store.lease(1, "w", ttl_s=60)) for _ in range(6)]
    assert order == [[link(n).key] for n in "dbeacf"]
    assert store.lease(1, "w", ttl_s=60) == []


def test_a_batch_lease_comes_in_order(store: RouteStore) -> None:
    store.push([link(i, priority=i % 3) for i in range(9)])
    got = keys(store.lease(9, "w", ttl_s=60))
    assert got == [link(i).key for i in (2, 5, 8, 1, 4, 7, 0, 3, 6)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 30), st.sampled_from([-1.0, 0.0, 0.5, 3.0])), max_size=40))
def test_lease_order_is_priority_then_insertion(backend: Backend, pushed: list[tuple[int, float]]) -> None:
    store = backend.fresh()
    first: dict[int, tuple[int, float]] = {}
    for index, (n, priority) in enumerate(pushed):
        first.setdefault(n, (index, priority))  # a re-push keeps the first route
    assert store.push([link(n, p) for n, p in pushed]) == len(first)
    expected = sorted(first, key=lambda n: (-first[n][1], first[n][0]))
    got: list[str] = []
    while batch := store.lease(3, "w", ttl_s=60):
        got += keys(batch)
    assert got == [link(n).key for n in expected]


# -- leases -----------------------------------------------------------------------


def test_lease_describes_itself(store: RouteStore) -> None:
    store.push([link(1)])
    before = time.time()
    [lease] = store.lease(5, "worker-1", ttl_s=30)
    assert (lease.route, lease.attempt, lease.worker) == (link(1), 1, "worker-1")
    assert before + 30 <= lease.expires_at <= time.time() + 30
    assert store.lease(0, "w", ttl_s=30) == []


def test_leased_routes_go_to_one_worker_only(store: RouteStore) -> None:
    store.push([link(i) for i in range(5)])
    first = store.lease(2, "w1", ttl_s=60)
    second = store.lease(10, "w2", ttl_s=60)
    assert len(first) == 2 and len(second) == 3
    assert not set(keys(first)) & set(keys(second))
    assert store.counts()[LEASED] == 5 and store.pending() == 5
    assert store.lease(1, "w3", ttl_s=60) == []


def test_workers_in_threads_never_share_a_route(backend: Backend) -> None:
    setup = backend.open()
    total = 400
    setup.push([link(i) for i in range(total)])
    shared = backend.open()  # two threads on one store object, four on their own
    stores = [shared, shared] + [backend.open() for _ in range(4)]
    taken: list[str] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def work(store: RouteStore, name: str) -> None:
        try:
            while leases := store.lease(3, name, ttl_s=60):
                for lease in leases:
                    assert store.ack_done(lease) == DONE
                with lock:
                    taken.extend(keys(leases))
        except BaseException as exc:  # surfaced below; a thread's exception is otherwise lost
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s, f"w{i}")) for i, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    assert len(taken) == total and len(set(taken)) == total
    assert setup.counts() == {QUEUED: 0, LEASED: 0, DONE: total, FAILED: 0}


def test_an_expired_lease_is_leased_again(store: RouteStore) -> None:
    store.push([link(1)])
    [old] = store.lease(1, "w1", ttl_s=0)  # expired at once
    [new] = store.lease(1, "w2", ttl_s=60)  # lease() expires lazily
    assert new.route == old.route and new.token != old.token
    assert new.attempt == 2  # an expired lease counts as a try
    assert store.get(old.route.key).reason == "lease expired"  # type: ignore[union-attr]


def test_expire_requeues_overdue_leases_only(store: RouteStore) -> None:
    store.push([link(1), link(2)])
    store.lease(1, "w1", ttl_s=60)
    store.lease(1, "w2", ttl_s=0)
    assert store.expire() == 1
    assert store.counts()[QUEUED] == 1 and store.counts()[LEASED] == 1
    assert store.expire() == 0


def test_leases_that_keep_expiring_end_as_failed(backend: Backend) -> None:
    store = backend.open(max_attempts=2)
    store.push([link(1)])
    store.lease(1, "w", ttl_s=0)
    store.lease(1, "w", ttl_s=0)
    assert store.expire() == 1
    assert store.counts()[FAILED] == 1
    assert store.failures() == {"lease expired": 1}


# -- acks -------------------------------------------------------------------------


def test_ack_done_finishes_the_route_once(store: RouteStore) -> None:
    store.push([link(1), link(2)])
    [lease] = store.lease(1, "w", ttl_s=60)
    assert store.ack_done(lease) == DONE
    assert store.ack_done(lease) is None
    assert store.ack_failed(lease, "late", retry=True) is None
    assert store.counts() == {QUEUED: 1, LEASED: 0, DONE: 1, FAILED: 0}
    assert store.pending() == 1


def test_ack_failed_with_retry_requeues_after_the_backoff(store: RouteStore) -> None:
    store.push([link(1)])
    [lease] = store.lease(1, "w", ttl_s=60)
    assert store.ack_failed(lease, "timeout", retry=True, backoff_s=0.2) == QUEUED
    record = store.get(link(1).key)
    assert record is not None and (record.attempts, record.reason) == (1, "timeout")
    assert store.counts()[QUEUED] == 1 and store.pending() == 1
    deadline = time.monotonic() + 10
    while not (again := store.lease(1, "w", ttl_s=60)):
        assert time.monotonic() < deadline, "a retried route never came back"
        time.sleep(0.05)
    assert again[0].attempt == 2


def test_a_backoff_holds_the_route_back(store: RouteStore) -> None:
    store.push([link(1), link(2)])
    [lease] = store.lease(1, "w", ttl_s=60)
    store.ack_failed(lease, "http 503", retry=True, backoff_s=3600)
    assert keys(store.lease(5, "w", ttl_s=60)) == [link(2).key]
    assert store.expire() == 0  # a delayed route is not a lease
    assert store.counts()[QUEUED] == 1


def test_a_retry_with_no_backoff_is_ready_at_once(store: RouteStore) -> None:
    store.push([link(1)])
    [lease] = store.lease(1, "w", ttl_s=60)
    store.ack_failed(lease, "crash", retry=True, backoff_s=0)
    assert keys(store.lease(1, "w", ttl_s=60)) == [link(1).key]


def test_attempts_run_out_after_max_attempts(backend: Backend) -> None:
    store = backend.open(max_attempts=3)
    store.push([link(1)])
    states = []
    for attempt in (1, 2, 3):
        [lease] = store.lease(1, "w", ttl_s=60)
        assert lease.attempt == attempt
        states.append(store.ack_failed(lease, "browser crashed", retry=True, backoff_s=0))
    assert states == [QUEUED, QUEUED, FAILED]
    assert store.lease(1, "w", ttl_s=60) == []
    assert store.failures() == {"browser crashed": 1}
    assert store.pending() == 0


def test_ack_failed_without_retry_fails_at_once(store: RouteStore) -> None:
    store.push([link(1), link(2), link(3)])
    a, b, c = store.lease(3, "w", ttl_s=60)
    assert store.ack_failed(a, "robots: disallowed", retry=False) == FAILED
    assert store.ack_failed(b, "robots: disallowed", retry=False) == FAILED
    assert store.ack_failed(c, "http 404", retry=False) == FAILED
    assert store.failures() == {"robots: disallowed": 2, "http 404": 1}
    assert store.counts() == {QUEUED: 0, LEASED: 0, DONE: 0, FAILED: 3}


def test_a_stale_lease_cannot_clobber_the_current_one(store: RouteStore) -> None:
    store.push([link(1)])
    [stale] = store.lease(1, "slow", ttl_s=0)
    [current] = store.lease(1, "fast", ttl_s=60)
    assert store.ack_done(stale) is None
    assert store.ack_failed(stale, "late", retry=False) is None
    assert store.release(stale) is None
    assert state_of(store, link(1).key) == LEASED
    assert store.ack_done(current) == DONE


def test_an_expired_lease_not_yet_taken_may_still_report(store: RouteStore) -> None:
    store.push([link(1)])
    [lease] = store.lease(1, "w", ttl_s=0)
    assert store.expire() == 1
    assert store.ack_done(lease) == DONE  # nobody else holds it: the work is kept
    assert store.counts()[DONE] == 1 and store.pending() == 0


def test_release_gives_back_without_spending_an_attempt(store: RouteStore) -> None:
    store.push([link(1), link(2)])
    [lease] = store.lease(1, "w", ttl_s=60)
    assert store.release(lease, delay_s=3600) == QUEUED
    assert keys(store.lease(5, "w", ttl_s=60)) == [link(2).key]  # held back
    record = store.get(link(1).key)
    assert record is not None and record.attempts == 0


def test_release_with_no_delay_is_ready_at_once(store: RouteStore) -> None:
    store.push([link(1)])
    [lease] = store.lease(1, "w", ttl_s=60)
    store.release(lease)
    [again] = store.lease(1, "w", ttl_s=60)
    assert again.attempt == 1 and again.token != lease.token


def test_reset_leases_of_one_worker(store: RouteStore) -> None:
    store.push([link(i) for i in range(4)])
    store.lease(2, "gone", ttl_s=600)
    kept = store.lease(2, "alive", ttl_s=600)
    assert store.reset_leases("gone") == 2
    assert store.counts()[QUEUED] == 2 and store.counts()[LEASED] == 2
    assert all(store.ack_done(lease) == DONE for lease in kept)
    again = store.lease(5, "w", ttl_s=60)
    assert len(again) == 2 and all(lease.attempt == 1 for lease in again)  # not counted


def test_reset_leases_of_this_process(store: RouteStore) -> None:
    store.push([link(i) for i in range(3)])
    store.lease(1, "a", ttl_s=600)
    store.lease(1, "b", ttl_s=600)
    assert store.reset_leases() == 2
    assert store.counts()[LEASED] == 0


def test_recover_leaves_live_leases_alone(store: RouteStore) -> None:
    store.push([link(1)])
    store.lease(1, "w", ttl_s=600)
    assert store.recover() == 0
    assert store.counts()[LEASED] == 1


# -- counts -----------------------------------------------------------------------


def test_counts_follow_every_transition(store: RouteStore) -> None:
    store.push([link(i) for i in range(10)])
    leases = store.lease(6, "w", ttl_s=60)
    store.ack_done(leases[0])
    store.ack_done(leases[1])
    store.ack_failed(leases[2], "boom", retry=False)
    store.ack_failed(leases[3], "flaky", retry=True, backoff_s=3600)
    store.release(leases[4], delay_s=0)
    assert store.counts() == {QUEUED: 6, LEASED: 1, DONE: 2, FAILED: 1}
    assert sum(store.counts().values()) == 10
    assert store.pending() == 7
    assert store.failures() == {"boom": 1}  # a retried failure is not (yet) a failure


# -- sessions ---------------------------------------------------------------------


def test_identical_sessions_are_stored_once(store: RouteStore) -> None:
    cookies = ({"name": "sid", "value": "42", "domain": "site.test", "path": "/"},)
    a = SessionState(cookies=cookies)
    b = SessionState.from_playwright({"cookies": [dict(cookies[0])], "origins": []})
    digest = store.put_session(a)
    assert store.put_session(b) == digest == a.digest()
    assert store.get_session(digest) == a
    other = store.put_session(SessionState())
    assert other != digest and store.get_session(other) == SessionState()


def test_an_unknown_session_is_a_store_error(store: RouteStore) -> None:
    with pytest.raises(StoreError, match="no session"):
        store.get_session("0" * 32)


# -- priorities learned later ------------------------------------------------------


def test_raise_priority_raises_queued_routes_only(store: RouteStore) -> None:
    store.push([link(i) for i in range(4)])
    (first,) = store.lease(1, "w", ttl_s=60)
    store.ack_done(first)  # link 0 is done: nothing to raise
    assert store.raise_priority([link(n).key for n in (0, 2, 3)] + ["never pushed"], 5.0) == 2
    assert store.raise_priority([link(2).key], 1.0) == 0  # never lowered
    leased = store.lease(3, "w", ttl_s=60)
    assert keys(leased) == [link(2).key, link(3).key, link(1).key]
    assert [lease.route.priority for lease in leased] == [5.0, 5.0, 0.0]  # as it is now


# -- pages reached by acting -------------------------------------------------------


def test_a_page_belongs_to_the_first_route_that_reached_it(store: RouteStore) -> None:
    assert store.claim_page("http://a.test/r#0123", "click-1")
    assert not store.claim_page("http://a.test/r#0123", "click-2")  # reached again, another way
    assert store.claim_page("http://a.test/r#0123", "click-1")  # its own retry keeps it
    assert store.claim_page("http://a.test/r#4567", "click-2")  # another page: another claim


# -- forms analysed once ----------------------------------------------------------


def test_a_form_is_known_once_recorded(store: RouteStore) -> None:
    assert store.known_forms(["form:a", "form:b"]) == set()
    store.know_forms(["form:a"])
    store.know_forms(["form:a", "form:c"])  # again: no error, nothing doubled
    assert store.known_forms(["form:a", "form:b", "form:c", "form:a"]) == {"form:a", "form:c"}
    assert store.known_forms([]) == set()
    many = [f"form:{n}" for n in range(1200)]  # more than one statement's parameters
    store.know_forms(many)
    assert store.known_forms(many) == set(many)


# -- durability -------------------------------------------------------------------


def test_everything_survives_a_reopen(backend: Backend) -> None:
    store = backend.open()
    store.push([link(i, priority=i % 2) for i in range(6)])
    digest = store.put_session(SessionState(cookies=({"name": "a", "value": "1"},)))
    leases = store.lease(3, "w", ttl_s=600)
    store.ack_done(leases[0])
    store.ack_failed(leases[1], "boom", retry=False)
    before = store.counts()
    store.close()

    reopened = backend.open()
    assert reopened.counts() == before == {QUEUED: 3, LEASED: 1, DONE: 1, FAILED: 1}
    assert reopened.failures() == {"boom": 1}
    assert reopened.get_session(digest).cookies[0]["name"] == "a"
    assert reopened.ack_done(leases[2]) == DONE  # the lease is still valid
    assert keys(reopened.lease(5, "w", ttl_s=60)) == [link(n).key for n in (0, 2, 4)]
    assert reopened.push([link(i) for i in range(6)]) == 0


def test_a_claimed_page_stays_claimed_after_a_reopen(backend: Backend) -> None:
    store = backend.open()
    assert store.claim_page("http://a.test/r#0123", "click-1")
    store.close()
    reopened = backend.open()
    assert not reopened.claim_page("http://a.test/r#0123", "click-2")
    assert reopened.claim_page("http://a.test/r#0123", "click-1")


def test_known_forms_stay_known_after_a_reopen(backend: Backend) -> None:
    store = backend.open()
    store.know_forms(["form:a"])
    store.close()
    assert backend.open().known_forms(["form:a", "form:b"]) == {"form:a"}


def test_a_link_policy_state_and_route_hints_survive_a_reopen(backend: Backend) -> None:
    store = backend.open()
    assert store.get_state("structure") is None
    store.put_state("structure", '{"links": {}}')
    store.put_state("structure", '{"links": {"c1 html/body/a": [1, 0, 0]}}')  # replaced
    store.push([link(0).model_copy(update={"hint": "c1 html/body/a"})])
    store.close()
    reopened = backend.open()
    assert reopened.get_state("structure") == '{"links": {"c1 html/body/a": [1, 0, 0]}}'
    assert reopened.get_state("schema") is None  # not the store's own meta
    (lease,) = reopened.lease(1, "w", ttl_s=60)
    assert lease.route.hint == "c1 html/body/a"


def test_counts_stay_consistent_over_a_random_walk(backend: Backend) -> None:
    """A long mixed sequence: counts() must always equal the states get() reports."""
    store = backend.open(max_attempts=2)
    routes = [link(i, priority=i % 4) for i in range(60)]
    store.push(routes[:30])
    held: list[Lease] = []
    for step in range(200):
        action = step % 7
        if action == 0:
            store.push(routes[step % 60 : step % 60 + 5])
        elif action in (1, 2):
            held += store.lease(2, f"w{step % 3}", ttl_s=0 if step % 5 == 0 else 600)
        elif held and action == 3:
            store.ack_done(held.pop(0))
        elif held and action == 4:
            store.ack_failed(held.pop(), "x", retry=step % 2 == 0, backoff_s=0)
        elif held and action == 5:
            store.release(held.pop(0))
        else:
            store.expire()
    seen = [store.get(route.key) for route in routes]
    actual = Counter(record.state for record in seen if record is not None)
    assert store.counts() == {state: actual.get(state, 0) for state in RouteState}
    assert store.pending() == actual[QUEUED] + actual[LEASED]
