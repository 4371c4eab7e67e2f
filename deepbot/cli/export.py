"""``deepbot export``: a crawl's documents as JSON Lines or WARC, to a file or stdout."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from deepbot.config import DEFAULT_STORE
from deepbot.store.open import store_target


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("export", help="export the stored documents (JSONL, WARC)")
    p.add_argument("--store", type=store_target, default=Path(DEFAULT_STORE), help="the crawl's store file")
    p.add_argument("--format", choices=("jsonl", "warc"), default="jsonl")
    p.add_argument(
        "--output", "-o", type=Path, default=None,
        help="file to write (default stdout); a WARC file ending in .gz is gzipped per record",
    )  # fmt: skip
    p.add_argument("--html", action="store_true", help="JSONL: include the rendered HTML")
    p.set_defaults(func=run)


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
    from deepbot.store import write_jsonl, write_warc
    from deepbot.store.open import open_document_store

    with open_document_store(args.store, create=False) as store:
        if args.format == "jsonl":
            docs = store.iter_documents(html=args.html)
            if args.output is None:
                n = write_jsonl(docs, sys.stdout, html=args.html)
            else:
                with _replacing(args.output) as part, part.open("w", encoding="utf-8") as out:
                    n = write_jsonl(docs, out, html=args.html)
        elif args.output is None:
            n = write_warc(store.iter_documents(), sys.stdout.buffer, gzip=False)
            sys.stdout.buffer.flush()
        else:
            with _replacing(args.output) as part, part.open("wb") as bout:
                gzip = args.output.suffix == ".gz"
                n = write_warc(store.iter_documents(), bout, gzip=gzip, filename=args.output.name)
    if args.output is not None:
        print(f"exported {n} documents to {args.output}", file=sys.stderr)
    return 0
