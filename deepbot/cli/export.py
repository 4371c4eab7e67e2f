"""``deepbot export``: a crawl's documents as JSON Lines or WARC, to a file or stdout."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from deepbot.config import DEFAULT_STORE
from deepbot.store.open import store_target

if TYPE_CHECKING:
    from deepbot.routes import Document


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("export", help="export the stored documents (JSONL, WARC)")
    p.add_argument("--store", type=store_target, default=Path(DEFAULT_STORE), help="the crawl's store file")
    p.add_argument("--format", choices=("jsonl", "warc"), default="jsonl")
    p.add_argument(
        "--output", "-o", type=Path, default=None,
        help="file to write (default stdout); a WARC file ending in .gz is gzipped per record",
    )  # fmt: skip
    p.add_argument("--html", action="store_true", help="JSONL: include the rendered HTML")
    p.add_argument("--since", type=moment, metavar="TIME",
                   help="only the documents added or changed since TIME: a date or time (ISO 8601, UTC "
                   "unless it says) or an age (12h, 1d, 2w ago); JSONL records then say their change "
                   "(new, changed)")
    p.add_argument("--deleted", action="store_true",
                   help="with --since, JSONL: also a line for each document gone since (404/410, or no "
                   "longer listed by its query's results)")
    p.set_defaults(func=run)


def moment(text: str) -> datetime:
    """An ISO 8601 date or time (UTC when it names no zone), or an age before now (``1d``)."""
    try:
        at = datetime.fromisoformat(text.strip())
    except ValueError:
        from deepbot.cli.recrawl import duration

        try:
            return datetime.now(UTC) - duration(text)
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(
                f"not a time: {text!r} (say 2026-11-27, 2026-11-27T06:00+01:00, or an age: 1d)") from None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


@contextmanager
def _replacing(target: Path) -> Iterator[Path]:
    """A file beside ``target`` that becomes it only when the export is complete: a failed
    or interrupted export leaves no partial file (and an earlier export in place)."""
    part = target.with_name(f".{target.name}.part")
    try:
        yield part
        os.replace(part, target)
    except OSError as exc:
        if exc.filename == str(part):  # the user named the target, not our temporary file
            exc.filename = str(target)
        raise
    finally:
        part.unlink(missing_ok=True)


def run(args: argparse.Namespace) -> int:
    from deepbot.store import changes_since, write_changes_jsonl, write_jsonl, write_warc
    from deepbot.store.open import open_document_store

    if args.deleted and (args.since is None or args.format != "jsonl"):
        print("deepbot export: --deleted goes with --since, in JSONL", file=sys.stderr)
        return 2
    with open_document_store(args.store, create=False) as store:

        def jsonl(out: IO[str]) -> int:
            if args.since is not None:
                return write_changes_jsonl(store, args.since, out, html=args.html, deleted=args.deleted)
            return write_jsonl(store.iter_documents(html=args.html), out, html=args.html)

        def documents() -> Iterator[Document]:
            if args.since is None:
                return store.iter_documents()
            return (doc for _, doc in changes_since(store, args.since))

        if args.format == "jsonl":
            if args.output is None:
                n = jsonl(sys.stdout)
            else:
                with _replacing(args.output) as part, part.open("w", encoding="utf-8") as out:
                    n = jsonl(out)
        elif args.output is None:
            n = write_warc(documents(), sys.stdout.buffer, gzip=False)
            sys.stdout.buffer.flush()
        else:
            with _replacing(args.output) as part, part.open("wb") as bout:
                gzip = args.output.suffix == ".gz"
                n = write_warc(documents(), bout, gzip=gzip, filename=args.output.name)
    if args.output is not None:
        print(f"exported {n} documents to {args.output}", file=sys.stderr)
    return 0
