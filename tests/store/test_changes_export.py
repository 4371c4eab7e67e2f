"""``deepbot export --since [--deleted]`` and the per-host changes of ``deepbot status``."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deepbot.cli import main
from deepbot.cli.export import moment
from deepbot.store import Change, SqliteDocumentStore

from .conftest import make_doc

DAY0 = datetime(2026, 11, 1, tzinfo=UTC)


def _at(days: float) -> datetime:
    return DAY0 + timedelta(days=days)


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """Nov 1: a, b, c, d stored. Nov 3: a edited, b unchanged, c gone, e new; Nov 4: d edited."""
    path = tmp_path / "s.sqlite"
    with SqliteDocumentStore(path) as store:
        docs = {n: make_doc(f"/{n}", n.upper(), f"page {n}", fetched_at=_at(0)) for n in "abcd"}
        for doc in docs.values():
            store.upsert(doc)
        store.upsert(docs["a"].model_copy(update={"text": "page a, edited", "fetched_at": _at(2)}))
        store.upsert(docs["b"].model_copy(update={"fetched_at": _at(2)}))
        store.mark(docs["c"].id, Change.GONE, _at(2))
        store.upsert(make_doc("/e", "E", "page e", fetched_at=_at(2)))
        store.upsert(docs["d"].model_copy(update={"text": "page d, edited", "fetched_at": _at(3)}))
    return path


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_export_since_gives_what_was_added_or_changed(history: Path, capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    assert main(["export", "--store", str(history), "--since", "2026-11-02"]) == 0
    found = [(r["title"], r["change"]) for r in _lines(capsys)]
    assert found == [("A", "changed"), ("E", "new"), ("D", "changed")]
    assert main(["export", "--store", str(history), "--since", "2026-11-03T13:00:00+12:00"]) == 0  # 01:00 UTC
    assert [r["title"] for r in _lines(capsys)] == ["D"]


def test_export_deleted_adds_what_went(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--store", str(history), "--since", "2026-11-02", "--deleted"]) == 0
    lines = _lines(capsys)
    assert lines[-1] == {"id": make_doc("/c").id, "url": "https://shop.example/c", "change": "gone",
                         "at": "2026-11-03T00:00:00+00:00"}
    assert len(lines) == 4
    assert main(["export", "--store", str(history), "--deleted"]) == 2  # --deleted needs --since


def test_export_since_as_warc_holds_the_changed_documents_only(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "changed.warc"
    args = ["--since", "2026-11-02", "--format", "warc", "-o", str(out)]
    assert main(["export", "--store", str(history), *args]) == 0
    body = out.read_bytes()
    assert body.count(b"WARC-Type: metadata") == 3 and b"https://shop.example/b" not in body


def test_times_and_ages() -> None:
    assert moment("2026-11-02") == datetime(2026, 11, 2, tzinfo=UTC)
    assert abs((datetime.now(UTC) - moment("1d")) - timedelta(days=1)) < timedelta(seconds=5)
    with pytest.raises(argparse.ArgumentTypeError):
        moment("yesterday-ish")


def test_status_shows_what_revisits_found_per_host(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--store", str(history), "--json"]) == 0
    seen = json.loads(capsys.readouterr().out)["changes_by_host"]["shop.example"]
    # a, b, c, d revisited once each (a and d changed; c went), e seen once.
    assert {k: seen[k] for k in ("documents", "revisits", "changed", "gone")} == {
        "documents": 5, "revisits": 4, "changed": 2, "gone": 1}
    assert seen["changes_per_day"] > 0
    assert main(["status", "--store", str(history)]) == 0
    assert "shop.example  5 documents, 2/4 revisits changed, 1 gone" in capsys.readouterr().out
