"""Shared by the benchmarks: paths, the site module, and measuring a process tree.

``measure()`` runs one command as a fresh subprocess and reports its wall time, the
CPU seconds of its whole process tree (Chromium included) and the peak memory of
that tree. The harness makes itself a *child subreaper* so that processes which
outlive their parent (Chromium helpers, a driver that is killed) are re-parented
to it and reaped here: their CPU time then lands in ``RUSAGE_CHILDREN`` instead
of vanishing with init.

It also splits the tree by *role* (``process_role``: the crawler's Python, the
Playwright driver, Chromium's browser, renderer, GPU and network processes…): CPU
seconds per role, from each process's last sample (a process that exits between two
samples loses at most 0.1 s), and PSS per role at the tree's peak.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import importlib.util
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import psutil

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"
VENVS = BENCH / ".venvs"

_PR_SET_CHILD_SUBREAPER = 36


def load_bench_module(name: str) -> ModuleType:
    """Import ``bench/<name>.py`` by path (``bench/site.py`` would lose to the stdlib ``site``)."""
    module_name = f"bench_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux only); False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)


@dataclass
class Measurement:
    returncode: int | None  # None when it had to be killed at the time limit
    timed_out: bool
    wall_s: float
    cpu_s: float  # user + system of the whole tree
    peak_rss_mb: float  # sum of RSS over the tree, at its peak (shared pages counted per process)
    peak_pss_mb: float  # the same with proportional set size: shared pages split, closer to real use
    peak_processes: int
    cpu_s_by_role: dict[str, float] = field(default_factory=dict)  # sampled; sums to about cpu_s
    peak_pss_mb_by_role: dict[str, float] = field(default_factory=dict)  # at the tree's PSS peak
    peak_processes_by_role: dict[str, int] = field(default_factory=dict)  # each role's own peak count


def process_role(cmdline: Sequence[str]) -> str:
    """What a process of a crawl's tree does: ``python``, ``node`` (Playwright's driver),
    or Chromium's ``browser``, ``renderer``, ``gpu``, ``network``, ``storage``, ``utility``,
    ``zygote``; any other program by its name."""
    if not cmdline:
        return "other"
    name = os.path.basename(cmdline[0])
    if name.startswith("python"):
        return "python"
    if name == "node":
        return "node"
    if "chrom" not in name and "headless_shell" not in name:
        return name or "other"
    kind = next((a.removeprefix("--type=") for a in cmdline if a.startswith("--type=")), "browser")
    if kind == "utility":
        sub = next((a.rsplit(".", 1)[-1] for a in cmdline if a.startswith("--utility-sub-type=")), "")
        return {"NetworkService": "network", "StorageService": "storage"}.get(sub, "utility")
    return "gpu" if kind == "gpu-process" else kind


def _reap_orphans() -> None:
    """Reap adopted descendants that have exited, so their rusage is accounted."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _kill_tree(root: psutil.Process | None) -> None:
    me = psutil.Process()
    victims = me.children(recursive=True)  # with the subreaper, orphans are ours too
    if root is not None:
        with contextlib.suppress(psutil.Error):
            victims = [root, *root.children(recursive=True), *victims]
    for proc in victims:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(signal.SIGKILL)


class _Sampler(threading.Thread):
    """Sums RSS and PSS over every descendant of the harness every ``interval`` s."""

    def __init__(self, interval: float = 0.1):
        super().__init__(name="tree-sampler", daemon=True)
        self.interval = interval
        self.peak_rss = 0
        self.peak_pss = 0
        self.peak_processes = 0
        self.peak_pss_by_role: dict[str, int] = {}
        self.peak_count_by_role: dict[str, int] = defaultdict(int)
        self._stop_event = threading.Event()
        self._procs: dict[int, psutil.Process] = {}
        self._roles: dict[int, str] = {}
        self._cpu: dict[int, float] = {}  # each process's CPU seconds when last seen
        self._seen: dict[int, int] = {}  # how many samples each process has been in

    def cpu_by_role(self) -> dict[str, float]:
        totals: dict[str, float] = defaultdict(float)
        for pid, seconds in self._cpu.items():
            totals[self._roles[pid]] += seconds
        return dict(totals)

    def _role(self, proc: psutil.Process, tick: int) -> str:
        # Asked at each of a process's first ten samples, then now and then: a forked child
        # shows its parent's command line until it execs (the driver: Python's; Chromium's
        # network service: "exe", ~80 ms) or renames itself (a renderer: the zygote's for
        # ~15 ms), and a short run is over in a second.
        seen = self._seen[proc.pid] = self._seen.get(proc.pid, 0) + 1
        if seen <= 10 or tick % 10 == 0:
            with contextlib.suppress(psutil.Error):
                # A process that has exited and awaits its reaping shows an empty command
                # line: keep the role it ran as (a recycled context's renderer is still one).
                if cmdline := proc.cmdline():
                    self._roles[proc.pid] = process_role(cmdline)
        return self._roles.setdefault(proc.pid, "other")

    def run(self) -> None:
        me = psutil.Process()
        tick = 0
        while not self._stop_event.is_set():
            rss = pss = 0
            pss_by_role: dict[str, int] = defaultdict(int)
            count_by_role: dict[str, int] = defaultdict(int)
            try:
                children = me.children(recursive=True)
            except psutil.Error:
                children = []
            for child in children:
                proc = self._procs.setdefault(child.pid, child)  # reuse: psutil caches per object
                role = self._role(proc, tick)
                count_by_role[role] += 1
                with contextlib.suppress(psutil.Error):
                    times = proc.cpu_times()
                    self._cpu[proc.pid] = times.user + times.system
                    if tick % 5 == 0:  # PSS reads smaps_rollup: dearer, so every 5th sample
                        full = proc.memory_full_info()
                        rss += full.rss
                        pss += full.pss
                        pss_by_role[role] += full.pss
                    else:
                        rss += proc.memory_info().rss
            self.peak_rss = max(self.peak_rss, rss)
            if tick % 5 == 0 and pss > self.peak_pss:
                self.peak_pss = pss
                self.peak_pss_by_role = dict(pss_by_role)
            self.peak_processes = max(self.peak_processes, len(children))
            for role, count in count_by_role.items():
                self.peak_count_by_role[role] = max(self.peak_count_by_role[role], count)
            tick += 1
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        self.join(5)


def measure(cmd: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
            cwd: Path | None = None, stdout: Path | None = None, stderr: Path | None = None) -> Measurement:
    """Run ``cmd`` to completion (or kill its tree at ``timeout`` s) and measure it."""
    _reap_orphans()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    sampler = _Sampler()
    out = open(stdout, "wb") if stdout else subprocess.DEVNULL  # noqa: SIM115 - closed below
    err = open(stderr, "wb") if stderr else subprocess.DEVNULL  # noqa: SIM115
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(list(cmd), env=dict(env) if env is not None else None, cwd=cwd,
                                stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        sampler.start()
        timed_out = False
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            # Killed at once, tree and all: a grace period would let it fetch pages after
            # the clock stopped, and its own closing report is not needed.
            timed_out = True
            _kill_tree(psutil.Process(proc.pid))
        wall = time.perf_counter() - started
        sampler.stop()
        # Whatever is left (a Chromium the driver did not close) is killed and reaped.
        _kill_tree(None)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            _reap_orphans()
            if proc.poll() is not None and not psutil.Process().children():
                break
            time.sleep(0.05)
    finally:
        for handle in (out, err):
            if handle is not subprocess.DEVNULL:
                handle.close()  # type: ignore[union-attr]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Measurement(
        returncode=None if timed_out else proc.returncode,
        timed_out=timed_out,
        wall_s=wall,
        cpu_s=cpu,
        peak_rss_mb=sampler.peak_rss / 2**20,
        peak_pss_mb=sampler.peak_pss / 2**20,
        peak_processes=sampler.peak_processes,
        cpu_s_by_role={k: round(v, 2) for k, v in sorted(sampler.cpu_by_role().items())},
        peak_pss_mb_by_role={k: round(v / 2**20, 1) for k, v in sorted(sampler.peak_pss_by_role.items())},
        peak_processes_by_role=dict(sorted(sampler.peak_count_by_role.items())),
    )


def measure_child(script: Path, kind: str, name: str, child_args: Sequence[str], server: Any, pages: int,
                  time_limit: float, logs: Path) -> tuple[Measurement, dict[str, Any]]:
    """Run ``script --child name child_args…`` against the bench site's ``server``, measured, and
    the row each such benchmark reports for it (``kind``: what ``name`` is, e.g. ``variant``):
    exit, the pages the server counted, wall and CPU milliseconds a page, in all and by role."""
    server.reset()
    m = measure([sys.executable, str(script), "--child", name, *child_args], timeout=time_limit,
                stderr=logs / f"{name}.log")
    fetched = server.counts().distinct_pages
    per_page = 1000 / max(fetched, 1)
    return m, {
        kind: name, "returncode": m.returncode, "timed_out": m.timed_out, "pages": fetched,
        "complete": fetched == pages and m.returncode == 0,
        "wall_ms_per_page": round(m.wall_s * per_page, 1), "cpu_ms_per_page": round(m.cpu_s * per_page, 1),
        "cpu_ms_per_page_by_role": {role: round(s * per_page, 1) for role, s in m.cpu_s_by_role.items()},
    }


def parse_only(parser: argparse.ArgumentParser, only: str | None, choices: Sequence[str], what: str,
               default: Sequence[str] | None = None) -> list[str]:
    """``--only a,b``'s names (``default``, else all ``choices``, when not given); an unknown
    name is a usage error."""
    names = [v.strip() for v in (only or ",".join(default or choices)).split(",") if v.strip()]
    unknown = [v for v in names if v not in choices]
    if unknown:
        parser.error(f"unknown {what}(s) {', '.join(unknown)}; choose from {', '.join(choices)}")
    return names


def interleaved(names: Sequence[str], rounds: int) -> Iterator[tuple[int, str]]:
    """(round, name) for each round: the names in order, reversed every other round, so that
    the machine's drift falls on all of them."""
    for round_no in range(rounds):
        for name in names if round_no % 2 == 0 else names[::-1]:
            yield round_no + 1, name


def venv_python(name: str) -> Path:
    return VENVS / name / "bin" / "python"


def ensure_venv(name: str, requirements: Path, log: Path) -> Path:
    """Create ``bench/.venvs/<name>`` with ``requirements`` unless it already matches them."""
    venv = VENVS / name
    python = venv_python(name)
    marker = venv / ".bench-requirements"
    wanted = requirements.read_text()
    if python.exists() and marker.exists() and marker.read_text() == wanted:
        return python
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"}  # they use the system Chromium
    with open(log, "wb") as handle:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, stdout=handle, stderr=handle)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(requirements)], check=True,
                       stdout=handle, stderr=handle, env=env)
    marker.write_text(wanted)
    return python


# A/B of DeepBot itself: a git revision in a temporary worktree against this tree.


@contextlib.contextmanager
def worktree(revision: str) -> Iterator[Path]:
    """A temporary, detached worktree of ``revision``: DeepBot as it was."""
    with tempfile.TemporaryDirectory(prefix="deepbot-ab-") as tmp:
        tree = Path(tmp) / "before"
        git = ["git", "-C", str(REPO), "worktree"]
        subprocess.run([*git, "add", "--detach", "--quiet", str(tree), revision], check=True)
        try:
            yield tree
        finally:
            subprocess.run([*git, "remove", "--force", str(tree)], check=False)


def ab_sides(before: Path, pair: int) -> list[tuple[str, Path]]:
    """Before then after, then after then before…: the machine's drift falls on both sides."""
    sides = [("before", before), ("after", REPO)]
    return sides if pair % 2 == 0 else sides[::-1]


def tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes a subprocess import DeepBot from ``tree``, whatever is installed."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")])}


def median_ratios(rows: Sequence[Mapping[str, Any]], keys: Sequence[str], **where: Any) -> dict[str, float]:
    """After / before of the medians of ``keys`` over the rows matching ``where``."""
    out: dict[str, float] = {}
    for key in keys:
        before, after = (statistics.median(float(r[key]) for r in rows
                                           if r["side"] == side and all(r[k] == v for k, v in where.items()))
                         for side in ("before", "after"))
        if before:
            out[key] = round(after / before, 3)
    return out


def print_ab(rows: Sequence[Mapping[str, Any]], columns: Mapping[str, str],
             ratios: Mapping[str, Mapping[str, float]]) -> None:
    """The runs as a Markdown table (``columns``: header -> key), then each group's
    after / before ratios."""
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[key]) for key in columns.values()) + " |")
    for group, ratio in ratios.items():
        print(f"\n{group}, after / before (medians): "
              + ", ".join(f"{key} {value:.2f}x" for key, value in ratio.items()))
