"""``deepbot replay FILE.nseql``: walk a navigation sequence in a fresh browser."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from deepbot.errors import ReplayError


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    return value


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "replay",
        help="replay a navigation sequence (.nseql) in a fresh browser",
        description="Run an NSEQL program in a fresh browser; print the final URL and title. "
        "Exits 1 and names the failing line when a step fails.",
    )
    parser.add_argument("file", metavar="FILE", help="an .nseql file, or - to read standard input")
    parser.add_argument("--screenshot", type=Path, metavar="PNG", help="save a full-page screenshot")
    parser.add_argument("--html", type=Path, metavar="FILE", help="save the final page's rendered HTML")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    parser.add_argument(
        "--timeout", type=_seconds, default=30.0, metavar="SECONDS", help="bound on each step (default 30)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from deepbot.replay import replay

    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"deepbot replay: cannot read {args.file}: {exc}", file=sys.stderr)
        return 1
    try:
        result = asyncio.run(
            replay(text, headed=args.headed, screenshot=args.screenshot, html=args.html, timeout=args.timeout)
        )
    except ReplayError as exc:  # the program did not parse
        print(f"deepbot replay: {exc}", file=sys.stderr)
        return 1
    print(f"url: {result.final_url}")
    print(f"title: {result.title}")
    print(f"steps: {result.steps_run}")
    if result.error is not None:
        print(f"deepbot replay: {result.error}", file=sys.stderr)
        return 1
    for label, path in (("screenshot", args.screenshot), ("html", args.html)):
        if path is not None:
            print(f"{label}: {path}")
    return 0
