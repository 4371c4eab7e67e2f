"""``deepbot login PROGRAM.nseql --save FILE``: log in once, save the session for crawls.

The program is NSEQL (navigate, fill, click…), run in a fresh browser; the cookies and
localStorage it ends with are saved as Playwright storage_state JSON, which
``deepbot crawl --session FILE`` and ``deepbot replay --session FILE`` start from.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Run an NSEQL program that logs in, in a fresh browser, and save the session it ends
with (cookies and localStorage, as Playwright's storage_state JSON, readable by you
only) for `deepbot crawl --session FILE`.

${NAME} in the program's arguments is replaced by the environment variable NAME,
so a password need not be written in the file:

    navigate https://example.org/login
    fill "#username" "${SITE_USER}"
    fill "#password" "${SITE_PASSWORD}"
    click 'role=button[name="Log in"]'
    wait url "/account"

Ending on a page only a logged-in person sees (a `wait` for it) makes a failed login
fail here, not later in the crawl. Exits 1 naming the line when a step fails, or
when the program ends with no session at all.
"""


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "login", help="run an NSEQL login program and save the session for crawls",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("program", metavar="PROGRAM", help="an .nseql file, or - for standard input")
    parser.add_argument("--save", type=Path, required=True, metavar="FILE", help="where to save the session")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                        help="bound on each step (default 30)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from deepbot.crawl.sessions import expand_variables, masked, save_session, secret_values
    from deepbot.errors import ReplayError
    from deepbot.replay import load_program, replay

    source = "<stdin>" if args.program == "-" else args.program
    try:
        text = sys.stdin.read() if args.program == "-" else Path(args.program).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"deepbot login: cannot read {source}: {exc}", file=sys.stderr)
        return 1
    try:
        program = expand_variables(load_program(text), source)
    except ReplayError as exc:  # it does not parse
        print(f"deepbot login: {source}: {exc}", file=sys.stderr)
        return 1
    secrets = secret_values(text)  # a failing `fill "#pw" "${PASSWORD}"` must not print the password
    result = asyncio.run(replay(program, headed=args.headed, timeout=args.timeout, keep_session=True))
    print(masked(f"url: {result.final_url}", secrets))  # a GET login form puts it in the URL
    print(masked(f"title: {result.title}", secrets))
    if result.error is not None:
        print(masked(f"deepbot login: {source}: {result.error}", secrets), file=sys.stderr)
        return 1
    session = result.session
    if session is None or session.empty:
        print("deepbot login: the program ended with no cookies and no storage: nothing to save "
              "(did the login work?)", file=sys.stderr)
        return 1
    save_session(session, args.save)
    domains = sorted({str(c.get("domain", "")).lstrip(".") for c in session.cookies} - {""})
    stored = sum(1 for o in session.origins if o.get("localStorage"))
    print(f"saved: {args.save} ({len(session.cookies)} cookies for {', '.join(domains) or '-'}; "
          f"localStorage of {stored} origins)")
    return 0
