"""``deepbot status``: routes by state, documents by how they were found, what revisits found
per host, failures by reason."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepbot.config import DEFAULT_STORE
from deepbot.errors import StoreError
from deepbot.store.open import shown_target, store_target

if TYPE_CHECKING:
    from deepbot.store import DocumentStore


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("status", help="show a store's routes, documents, failures")
    p.add_argument("--store", type=store_target, default=Path(DEFAULT_STORE))
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def _changes_by_host(documents: DocumentStore) -> dict[str, dict[str, Any]]:
    """What revisits found, per host: only once a document was visited twice (a recrawl)."""
    visits = list(documents.visits())
    if len(visits) == len({visit.doc_id for visit in visits}):
        return {}  # one visit each: nothing revisited yet (and numpy not loaded for nothing)
    from deepbot.policy.revisit import host_changes

    return {host: asdict(seen) for host, seen in host_changes(visits).items()}


def run(args: argparse.Namespace) -> int:
    from deepbot.cli.worker import worker_lines, worker_rows
    from deepbot.frontier.open import open_route_store
    from deepbot.store.open import open_document_store, store_missing

    if store_missing(args.store):
        raise StoreError(f"no store at {args.store} (run `deepbot crawl --store {args.store}` first)")
    frontier = open_route_store(args.store)
    documents = open_document_store(args.store)
    try:
        report: dict[str, Any] = {
            "store": shown_target(args.store),
            "routes": frontier.counts(),
            "documents": documents.count(),
            "documents_by_via": documents.counts_by_via(),
            "failures": frontier.failures(),
            "changes_by_host": _changes_by_host(documents),
        }
        if workers := worker_rows(frontier):  # a shared (PostgreSQL) store's registry
            report["workers"] = workers
    finally:
        frontier.close()
        documents.close()
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    print(f"Store {report['store']}")
    print("Routes:    " + (", ".join(f"{k} {v}" for k, v in sorted(report["routes"].items())) or "none"))
    by_via = ", ".join(f"{k} {v}" for k, v in sorted(report["documents_by_via"].items()))
    print(f"Documents: {report['documents']}" + (f" ({by_via})" if by_via else ""))
    if report["changes_by_host"]:
        print("Changes (revisits that found a change; estimated changes per day):")
        for host, seen in report["changes_by_host"].items():
            rate = "?" if seen["changes_per_day"] is None else f"{seen['changes_per_day']:.3g}/day"
            print(f"  {host}  {seen['documents']} documents, {seen['changed']}/{seen['revisits']} revisits "
                  f"changed, {seen['gone']} gone, {rate}")
    if report["failures"]:
        print("Failures:")
        for reason, count in sorted(report["failures"].items(), key=lambda kv: -kv[1]):
            print(f"  {count:6d}  {reason}")
    for line in worker_lines(report.get("workers", [])):
        print(line)
    return 0
