"""``deepbot search QUERY``: ranked full-text search over a crawl's documents."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from deepbot.config import DEFAULT_STORE
from deepbot.routes import Via
from deepbot.store.base import Hit
from deepbot.store.open import open_document_store, store_target

# Characters of a snippet shown at most: one line, whose matches stay in view.
SNIPPET_WIDTH = 160


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "search",
        help="search the stored documents",
        description="Query syntax: words (all must match), AND, OR, NOT, (groups), \"phrases\", prefix*.",
    )
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--store", type=store_target, default=Path(DEFAULT_STORE), help="the crawl's store file")
    p.add_argument("--limit", type=int, default=10, help="most hits to show (default 10)")
    p.add_argument("--json", action="store_true", help="print the hits as a JSON array")
    p.set_defaults(func=run)


def reached(hit: Hit) -> str:
    """How the page was reached, in words."""
    if hit.via is Via.FORM:
        query = ", ".join(f"{k}={v!r}" for k, v in (hit.query or {}).items())
        where = f" on {hit.form_url}" if hit.form_url else ""
        return f"form query{f' ({hit.domain})' if hit.domain else ''}: {query or '(empty)'}{where}"
    return {Via.SEED: "seed", Via.LINK: "link", Via.SCRIPT: "script anchor", Via.NEXT: "next page"}[hit.via]


def run(args: argparse.Namespace) -> int:
    with open_document_store(args.store, create=False) as store:
        hits = store.search(args.query, limit=args.limit)
    if args.json:
        rows = [{**hit.model_dump(mode="json"), "marked": hit.marked()} for hit in hits]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not hits:
        print(f"No documents match {args.query!r}.")
        return 0
    hits = [one_line(hit) for hit in hits]  # page text keeps its line breaks; a listing cannot
    if sys.stdout.isatty():
        _print_rich(hits)
    else:
        for i, hit in enumerate(hits, 1):
            print(f"{i}. {hit.title or '(untitled)'}")
            print(f"   {hit.url}")
            if hit.snippet:
                print(f"   {hit.marked()}")
            print(f"   via {reached(hit)} · id {hit.doc_id} · score {hit.score:.2f}")
    return 0


def one_line(hit: Hit, width: int = SNIPPET_WIDTH) -> Hit:
    """The hit with its snippet on one line: each run of whitespace (the page's line breaks,
    its indentation) one space, and at most ``width`` characters around the first match,
    "…" where cut; the highlights move with their words."""
    out: list[str] = []
    where: list[int] = []  # where[i]: the position of the snippet's i-th character in ``out``
    for char in hit.snippet:
        where.append(len(out))
        if not char.isspace():
            out.append(char)
        elif out and out[-1] != " ":
            out.append(" ")
    where.append(len(out))
    text = "".join(out).rstrip()
    marks = [(where[start], min(where[end], len(text))) for start, end in hit.highlights]
    if len(text) > width:
        # A third of the width before the first match, so that what follows it shows.
        first = marks[0][0] if marks else 0
        begin = max(0, min(first - width // 3, len(text) - width))
        end = begin + width
        head, tail = ("…" if begin else ""), ("…" if end < len(text) else "")
        piece = text[begin:end]
        shift = len(head) - begin - (len(piece) - len(piece.lstrip()))
        text = head + piece.strip() + tail
        marks = [(start + shift, stop + shift) for start, stop in marks if start >= begin and stop <= end]
    return hit.model_copy(update={"snippet": text, "highlights": tuple(marks)})


def _print_rich(hits: list[Hit]) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False)
    for i, hit in enumerate(hits, 1):
        console.print(Text.assemble((f"{i}. ", "dim"), (hit.title or "(untitled)", "bold")))
        console.print(Text("   " + hit.url, style="cyan"))
        if hit.snippet:
            snippet = Text("   " + hit.snippet)
            for start, end in hit.highlights:
                snippet.stylize("bold yellow", start + 3, end + 3)
            console.print(snippet)
        console.print(Text(f"   via {reached(hit)} · id {hit.doc_id} · score {hit.score:.2f}", style="dim"))
