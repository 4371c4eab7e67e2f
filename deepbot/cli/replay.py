"""``deepbot replay FILE.nseql | DOC_ID``: walk a navigation sequence in a fresh browser.

With a document id, the stored document's program is replayed and the page reached is
compared with the stored one (``deepbot.replay.compare_pages``); the exit code says
whether it was the same page.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepbot.config import DEFAULT_STORE
from deepbot.errors import ReplayError
from deepbot.store.open import store_target

if TYPE_CHECKING:
    from deepbot.replay import DocumentReplay
    from deepbot.routes import SessionState

_DOC_ID = re.compile(r"[0-9a-fA-F]{16}")
_VIA = {"seed": "seed", "link": "link", "script": "script anchor", "form": "form query", "next": "next page"}

DESCRIPTION = """\
Replay a navigation sequence in a fresh browser (no cookies, no storage), or
from a saved session (--session FILE, as `deepbot login` writes it).

TARGET is an NSEQL file (or - for standard input), or the 16-hex-digit id of a
document in --store. An existing file wins over an id of the same spelling.

A file: prints the final URL and title; exits 1 naming the line when a step fails.

A document id: replays the document's stored program and compares the page reached
with the stored page. It is the same page when the text fingerprint matches
(Jaccard similarity of 3-word shingles of the main text >= --threshold), or when
the canonical URL is the same for a page reached by a link (a page reached by a
click or a form may share its URL with others, so there only the text counts).
An HTTP error the stored page did not have means the page is gone. Exits 0 only
when the same page was reached; 1 otherwise (gone, different, a step failed).
Document ids are shown by `deepbot search` and in `deepbot export` output. A
document of a crawl that started logged in (`deepbot crawl --session`) is replayed
from that saved session, kept in the store; --session FILE gives a fresher one.
"""


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    return value


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], not {text!r}")
    return value


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "replay",
        help="replay a navigation sequence (.nseql file or stored document id) in a fresh browser",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("target", metavar="TARGET", help="an .nseql file, - for standard input, or a DOC_ID")
    parser.add_argument("--store", type=store_target, default=Path(DEFAULT_STORE),
                        help=f"the crawl's store, for a DOC_ID (default ./{DEFAULT_STORE})")
    parser.add_argument("--screenshot", type=Path, metavar="PNG", help="save a full-page screenshot")
    parser.add_argument("--html", type=Path, metavar="FILE", help="save the final page's rendered HTML")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    parser.add_argument("--session", type=Path, metavar="FILE",
                        help="start from this saved session (deepbot login; Playwright storage_state JSON)")
    parser.add_argument(
        "--timeout", type=_seconds, default=30.0, metavar="SECONDS", help="bound on each step (default 30)"
    )
    parser.add_argument("--threshold", type=_fraction, default=None, metavar="FRACTION",
                        help="for a DOC_ID: text similarity that counts as the same page (default 0.9)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    target: str = args.target
    if target != "-" and not Path(target).is_file() and _DOC_ID.fullmatch(target):
        return _run_document(args, target.lower())
    return _run_file(args, target)


def _run_file(args: argparse.Namespace, target: str) -> int:
    from deepbot.crawl.sessions import load_session
    from deepbot.replay import replay

    try:
        text = sys.stdin.read() if target == "-" else Path(target).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        hint = "" if target.endswith(".nseql") or "/" in target else " (nor is it a 16-hex-digit document id)"
        print(f"deepbot replay: cannot read {target}: {exc}{hint}", file=sys.stderr)
        return 1
    session = load_session(args.session) if args.session is not None else None
    try:
        result = asyncio.run(replay(text, headed=args.headed, screenshot=args.screenshot, html=args.html,
                                    timeout=args.timeout, session=session))
    except ReplayError as exc:  # the program did not parse
        print(f"deepbot replay: {exc}", file=sys.stderr)
        return 1
    print(f"url: {result.final_url}")
    print(f"title: {result.title}")
    print(f"steps: {result.steps_run}")
    if result.error is not None:
        print(f"deepbot replay: {result.error}", file=sys.stderr)
        return 1
    _print_files(args)
    return 0


def _run_document(args: argparse.Namespace, doc_id: str) -> int:
    from deepbot.replay import SIMILARITY_THRESHOLD, replay_document
    from deepbot.store.open import open_document_store

    with open_document_store(args.store, create=False) as store:  # StoreError: no such store
        doc = store.get(doc_id)
    if doc is None:
        print(
            f"deepbot replay: no document {doc_id} in {args.store}.\n"
            f"  Find document ids with `deepbot search QUERY --store {args.store}` (each hit ends with"
            f" its id)\n  or `deepbot export --store {args.store}` (the \"id\" of each line).",
            file=sys.stderr,
        )
        return 1
    threshold = SIMILARITY_THRESHOLD if args.threshold is None else args.threshold
    session = _start_session(args, doc.meta.get("start_session"))
    try:
        outcome = asyncio.run(replay_document(
            doc, headed=args.headed, screenshot=args.screenshot, html=args.html, timeout=args.timeout,
            threshold=threshold, session=session,
        ))  # fmt: skip
    except ReplayError as exc:  # a stored program that does not parse
        print(f"deepbot replay: document {doc_id}: {exc}", file=sys.stderr)
        return 1
    _print_comparison(outcome)
    if not outcome.reached:
        print(f"deepbot replay: did not reach the stored page: {outcome.reason}", file=sys.stderr)
        return 1
    _print_files(args)
    return 0


def _start_session(args: argparse.Namespace, digest: str | None) -> SessionState | None:
    """The session a document's program starts from: --session, else the crawl's own."""
    from deepbot.crawl.sessions import load_session
    from deepbot.frontier.open import open_route_store

    if args.session is not None:
        return load_session(args.session)
    if digest is None:
        return None
    with open_route_store(args.store, recover=False) as frontier:
        return frontier.get_session(digest)


def _print_comparison(outcome: DocumentReplay) -> None:
    from deepbot.replay import FINGERPRINT

    doc, result, match = outcome.document, outcome.result, outcome.match
    reached_by = _VIA[doc.via.value]
    if doc.query:
        reached_by += " " + ", ".join(f"{k}={v!r}" for k, v in doc.query.items())
    print(f"document: {doc.id} ({reached_by}), fetched {doc.fetched_at:%Y-%m-%d %H:%M} UTC")
    print(f"stored:   {doc.final_url}  [HTTP {doc.status or '-'}]  {doc.title}")
    print(f"url: {result.final_url}  [HTTP {result.status or '-'}]")
    print(f"title: {result.title}")
    print(f"steps: {result.steps_run}")
    if match is None:
        print("compared: nothing (a step failed)")
        return
    urls = match.replayed_url if match.same_url else f"{match.replayed_url} vs stored {match.stored_url}"
    print(f"compared: URL {'same' if match.same_url else 'different'} ({urls}); text similarity"
          f" {match.similarity:.2f}, threshold {match.threshold:.2f} ({FINGERPRINT})")
    if match.reached:
        print(f"reached the same page: {match.reason}")


def _print_files(args: argparse.Namespace) -> None:
    for label, path in (("screenshot", args.screenshot), ("html", args.html)):
        if path is not None:
            print(f"{label}: {path}")
