"""scripts/install-chromium.sh waits for another package manager's lock, bounded, and says so.

The script is sourced (it then only defines its functions) with its lock list pointed
at a file a ``sleep`` holds open, as apt holds its lock files; apt itself is never run.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "install-chromium.sh"

pytestmark = pytest.mark.skipif(shutil.which("fuser") is None, reason="fuser (psmisc) tells who holds a lock")


@pytest.fixture
def lock(tmp_path: Path) -> Path:
    path = tmp_path / "lock-frontend"
    path.touch()
    return path


def _hold(lock: Path, seconds: float) -> subprocess.Popen[bytes]:
    with lock.open("rb") as held:
        return subprocess.Popen(["sleep", str(seconds)], stdin=held)


@pytest.fixture
def holders() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def _run(lock: Path, wait_s: int, commands: str) -> tuple[subprocess.CompletedProcess[str], float]:
    script = f'source {SCRIPT}\nLOCKS=({lock})\nSUDO=""\n{commands}\n'
    start = time.monotonic()
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60, check=False,
                          env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "DEEPBOT_APT_LOCK_WAIT": str(wait_s)})
    return done, time.monotonic() - start


def test_it_waits_for_the_lock_and_says_so(lock: Path, holders: list[subprocess.Popen[bytes]]) -> None:
    holders.append(_hold(lock, 1))
    done, took = _run(lock, 30, "wait_for_apt")
    assert done.returncode == 0, done.stderr
    assert f"(process {holders[0].pid}) holds the apt/dpkg lock: waiting for it" in done.stderr
    assert "the apt/dpkg lock is free" in done.stderr
    assert 1 <= took < 10


def test_the_wait_is_bounded(lock: Path, holders: list[subprocess.Popen[bytes]]) -> None:
    holders.append(_hold(lock, 60))
    done, took = _run(lock, 1, "wait_for_apt")
    assert done.returncode == 0, done.stderr
    assert "still held after 1 s" in done.stderr
    assert took < 10


def test_a_free_lock_costs_no_wait_and_no_word(lock: Path) -> None:
    done, took = _run(lock, 30, "wait_for_apt")
    assert (done.returncode, done.stderr) == (0, "")
    assert took < 2


def test_apt_get_failing_on_a_lock_taken_meanwhile_is_tried_again(lock: Path) -> None:
    # A stand-in for apt-get: the first run finds the lists locked, the second succeeds.
    fake = """apt-get() {
  echo "$*" >> "$RUNS"
  if [ "$(wc -l < "$RUNS")" -lt 2 ]; then
    echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)" >&2; return 100
  fi
}"""
    runs = lock.with_name("runs")
    done, _ = _run(lock, 30, f"RUNS={runs}\n{fake}\napt_get update -qq && echo ok")
    assert done.stdout.strip() == "ok", done.stderr
    assert "waiting and trying again" in done.stderr
    (first, second) = runs.read_text().splitlines()
    # apt waits for the dpkg lock itself too, for what is left of the bound.
    assert first.startswith("-o DPkg::Lock::Timeout=") and first.endswith(" update -qq")
    assert 0 < int(second.split()[1].split("=")[1]) <= int(first.split()[1].split("=")[1]) <= 30


def test_another_failure_is_not_retried(lock: Path) -> None:
    runs = lock.with_name("runs")
    fake = 'apt-get() { echo "$*" >> "$RUNS"; echo "E: Unable to locate package chromium" >&2; return 100; }'
    done, _ = _run(lock, 30, f"RUNS={runs}\n{fake}\napt_get install chromium || echo failed")
    assert done.stdout.strip() == "failed"
    assert "Unable to locate package chromium" in done.stderr
    assert len(runs.read_text().splitlines()) == 1
