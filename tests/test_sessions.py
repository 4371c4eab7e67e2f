"""Saved sessions: the files a logged-in crawl starts from, and login programs' variables."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

import nseql
from deepbot.crawl.sessions import (
    dropped_login,
    expand_variables,
    load_session,
    logged_into,
    relogged,
    save_session,
)
from deepbot.errors import ConfigError
from deepbot.routes import SessionState

# As Playwright's context.storage_state() writes it.
PLAYWRIGHT_STATE = {
    "cookies": [
        {"name": ".ASPXAUTH", "value": "abc", "domain": "127.0.0.1", "path": "/patron", "expires": -1,
         "httpOnly": True, "secure": False, "sameSite": "Lax"},
    ],
    "origins": [{"origin": "http://127.0.0.1:8765", "localStorage": [{"name": "theme", "value": "dark"}]}],
}


def test_a_playwright_storage_state_loads_as_it_was_saved(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text(json.dumps(PLAYWRIGHT_STATE, indent=2))
    state = load_session(path)
    assert state.to_playwright() == PLAYWRIGHT_STATE
    save_session(state, tmp_path / "again.json")
    assert load_session(tmp_path / "again.json") == state
    assert stat.S_IMODE((tmp_path / "again.json").stat().st_mode) == 0o600  # its cookies are a login


def test_a_cookie_written_by_hand_gets_a_path() -> None:
    path = Path(__file__).parent / "data" / "sessions" / "by_hand.json"
    state = load_session(path)
    assert state.cookies[0]["path"] == "/" and state.cookies[1]["url"] == "https://example.org/"


@pytest.mark.parametrize(("text", "expected"), [
    ('{"cookies": [\n  {"name": "a", "value": "1"}\n]}', r"bad\.json:2: cookies\[0\]: .*domain"),
    ('{"cookies": [],\n "origins": [{"origin": "file:///x"}]}', r"bad\.json:2: origins\[0\]\.origin"),
    ('{"cookies": [\n  {"name": "a", "value": 1, "domain": "x"}\n]}', r"bad\.json:2: cookies\[0\]\.value"),
    ('{"cookies": [\n  {"name": "a",\n', r"bad\.json:3: YAML syntax error"),
    ('{"cookie": []}', r"bad\.json:1: cookie: Extra inputs"),
    ('[]', r"bad\.json:1: a session file .* is a mapping"),
])
def test_a_bad_session_file_names_the_file_line_and_field(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=expected):
        load_session(path)


def test_a_missing_session_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nothing\.json: cannot read a session file"):
        load_session(tmp_path / "nothing.json")


def test_variables_are_filled_after_parsing_so_any_value_is_safe() -> None:
    program = nseql.parse('navigate http://127.0.0.1/login  # as ${USER}\n'
                          'fill "#card" "${CARD}"\nfill \'#pin\' \'${PIN}\'\n')
    expanded = expand_variables(program, "login.nseql", {"CARD": "2123", "PIN": 'a"b\\c', "USER": "x"})
    fills = [s for s in expanded.steps if isinstance(s, nseql.Fill)]
    assert [f.value for f in fills] == ["2123", 'a"b\\c']
    assert expanded.steps[0].comment == "as ${USER}"  # comments are not filled: they may be printed
    with pytest.raises(ConfigError, match=r"login\.nseql:2: environment variable\(s\) not set: CARD"):
        expand_variables(program, "login.nseql", {"PIN": "1"})


def test_a_fresh_login_goes_over_a_route_session_and_keeps_the_rest() -> None:
    old = SessionState(
        cookies=({"name": ".ASPXAUTH", "value": "old", "domain": "lib.test", "path": "/patron"},
                 {"name": "cart", "value": "3 books", "domain": "lib.test", "path": "/"},
                 {"name": ".ASPXAUTH", "value": "other-path", "domain": "lib.test", "path": "/staff"}),
        origins=({"origin": "https://lib.test", "localStorage": [{"name": "token", "value": "old"},
                                                                  {"name": "view", "value": "list"}]},))
    login = SessionState(
        cookies=({"name": ".ASPXAUTH", "value": "new", "domain": "lib.test", "path": "/patron"},
                 {"name": "ASP.NET_SessionId", "value": "s2", "domain": "lib.test", "path": "/"}),
        origins=({"origin": "https://lib.test", "localStorage": [{"name": "token", "value": "new"}]},
                 {"origin": "https://sso.test", "localStorage": [{"name": "id", "value": "7"}]}))
    merged = relogged(old, login)
    assert {(c["name"], c["path"]): c["value"] for c in merged.cookies} == {
        (".ASPXAUTH", "/patron"): "new", ("cart", "/"): "3 books", (".ASPXAUTH", "/staff"): "other-path",
        ("ASP.NET_SessionId", "/"): "s2"}
    assert {o["origin"]: {i["name"]: i["value"] for i in o["localStorage"]} for o in merged.origins} == {
        "https://lib.test": {"token": "new", "view": "list"}, "https://sso.test": {"id": "7"}}


def test_which_hosts_a_login_is_for() -> None:
    stored = [{"name": "t", "value": "x"}]
    login = SessionState(cookies=({"name": "a", "value": "1", "domain": ".lib.test", "path": "/"},
                                  {"name": "b", "value": "2", "url": "https://sso.example/"}),
                         origins=({"origin": "https://app.test", "localStorage": stored},
                                  {"origin": "https://empty.test", "localStorage": []}))
    assert all(logged_into(login, url) for url in ("https://lib.test/x", "http://www.lib.test/",
                                                   "https://sso.example/a", "https://app.test/"))
    assert not any(logged_into(login, url) for url in ("https://otherlib.test/", "https://empty.test/",
                                                       "https://example/"))


def test_a_page_that_drops_the_login_cookie_or_token_has_ended_the_session() -> None:
    ticket = {"name": ".ASPXAUTH", "value": "t1", "domain": "lib.test", "path": "/"}
    cart = {"name": "cart", "value": "3", "domain": "lib.test", "path": "/"}
    other = {"name": "sid", "value": "s", "domain": "sso.test", "path": "/"}
    token = {"origin": "https://app.lib.test", "localStorage": [{"name": "reader.token", "value": "x"}]}
    login = SessionState(cookies=(ticket, other), origins=(token,))
    before = SessionState(cookies=(ticket, cart, other), origins=(token,))

    def after(*cookies: dict[str, str], origins: tuple[dict[str, object], ...] = (token,)) -> SessionState:
        return SessionState(cookies=cookies, origins=origins)

    assert dropped_login(login, before, after(cart, other), "https://lib.test/Loans.aspx")  # expired ticket
    renewed = {**ticket, "value": "t2"}
    assert not dropped_login(login, before, after(renewed, other), "https://lib.test/")
    assert not dropped_login(login, before, after(ticket, other), "https://lib.test/")  # only the cart went
    assert not dropped_login(login, before, after(ticket, cart), "https://lib.test/")  # another host's
    assert dropped_login(login, before, after(ticket, cart, other, origins=()), "https://app.lib.test/loans")
    emptied = ({"origin": "https://app.lib.test", "localStorage": []},)
    assert dropped_login(login, before, after(ticket, other, origins=emptied), "https://app.lib.test/loans")
    # What the session no longer had before the page cannot be dropped by it.
    assert not dropped_login(login, after(other), after(other), "https://lib.test/")
