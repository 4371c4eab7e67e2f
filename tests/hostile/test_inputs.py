"""Bad input gets one clear line naming the file (and line), exit 1, never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hostile.conftest import deepbot, one_clear_line

BINARY = bytes(range(256)) * 4


@pytest.mark.parametrize("flag", ["--domain", "--config", "--session"])
def test_a_binary_file_is_refused_on_one_line(tmp_path: Path, flag: str) -> None:
    (tmp_path / "f.yaml").write_bytes(b"name: x\n" + BINARY)
    extra = [] if flag == "--config" else ["--seed", "http://127.0.0.1:9/"]
    line = one_clear_line(deepbot("crawl", flag, "f.yaml", *extra, cwd=tmp_path))
    # The first byte that is no UTF-8 (0x80) is on line 3: the file's line 1, and a newline in the bytes.
    assert line.startswith("deepbot: error: f.yaml:3: ") and "UTF-8" in line


def test_a_yaml_key_that_is_a_list_is_refused_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("workers: 2\n? [a, b]\n: 1\n")
    line = one_clear_line(deepbot("crawl", "--config", "c.yaml", cwd=tmp_path))
    assert "c.yaml:2:" in line and "a key must be a plain value" in line


def test_a_seed_with_an_impossible_port_is_refused(tmp_path: Path) -> None:
    line = one_clear_line(deepbot("crawl", "--seed", "http://127.0.0.1:99999/", cwd=tmp_path))
    assert "99999" in line and "out of range" in line
    assert not any(tmp_path.iterdir())  # no store was made for a crawl that cannot start


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_a_seed_that_refuses_connections_fails_the_crawl_and_says_why(tmp_path: Path) -> None:
    done = deepbot("crawl", "--seed", "http://127.0.0.1:9/", "--store", "s.sqlite", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "1 routes failed" in done.stdout  # not "0 routes failed" beside "failed 1"
    status = deepbot("status", "--store", "s.sqlite", cwd=tmp_path)
    assert "connection refused" in status.stdout


def test_a_new_store_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    from deepbot.store import SqliteDocumentStore

    with SqliteDocumentStore(tmp_path / "s.sqlite"):
        pass
    assert (tmp_path / "s.sqlite").stat().st_mode & 0o777 == 0o600


def _damaged_store(path: Path) -> None:
    from deepbot.routes import Document, Via
    from deepbot.store import SqliteDocumentStore

    with SqliteDocumentStore(path) as store:
        for n in range(400):
            url = f"http://127.0.0.1/p{n}"
            store.upsert(Document(route_key=url, url=url, final_url=url, title=f"page {n}",
                                  text="word " * 300, nseql=f'navigate "{url}"', via=Via.LINK))
    size = path.stat().st_size
    with path.open("r+b") as f:  # garbage over the pages of the last third
        f.seek(size * 2 // 3)
        f.write(os.urandom(size // 4))


@pytest.mark.parametrize("command", [["status"], ["search", "word"], ["export", "-o", "out.jsonl"]])
def test_a_damaged_store_is_refused_and_no_partial_export_is_left(tmp_path: Path, command: list[str]) -> None:
    _damaged_store(tmp_path / "s.sqlite")
    line = one_clear_line(deepbot(*command, "--store", "s.sqlite", cwd=tmp_path))
    assert "damaged" in line and "s.sqlite" in line
    assert not (tmp_path / "out.jsonl").exists() and not list(tmp_path.glob(".*.part"))
