"""Throughput benchmark: DeepBot against the browser's own limit and against its peers.

    pip install -r bench/requirements.txt
    python bench/throughput.py                      # 1,000 pages, concurrency 1,4,8, 3 runs each
    python bench/throughput.py --quick              # a 40-page smoke run, about a minute
    python bench/throughput.py --concurrency 8 --runs 3 --only limit,deepbot
    python bench/throughput.py --assets 30          # pages that load 30 scripts and style sheets

One generated site (bench/site.py) is served on 127.0.0.1 by this process, which
counts every HTML GET itself. For each concurrency, rounds of runs are interleaved
(limit, deepbot, crawlee, scrapy-playwright, then the same order rotated by one, …)
so that a noisy neighbour on a shared machine hits every contestant alike, and each
contestant's ratio to the limit is taken within its own round. Every run is a fresh subprocess,
measured from the outside (bench/common.py): wall time, CPU seconds of the whole
process tree, peak memory of the tree (Chromium included), pages fetched as counted
by the server. Results: a table on stdout (Markdown), ``throughput.json`` and
``throughput.png`` in ``--out`` (default bench/out/).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

try:
    from common import BENCH, OUT, REPO, become_subreaper, ensure_venv, load_bench_module, measure, parse_only
except ModuleNotFoundError as exc:  # psutil, most likely
    sys.exit(f"{exc}: install the benchmark's requirements with `pip install -r bench/requirements.txt`")

from deepbot.browser import chromium_args, find_chromium
from deepbot.browser.blocking import MEDIA_URL
from deepbot.browser.pool import _IMAGES_OFF

site_module = load_bench_module("site")
PEERS = BENCH / "peers"
DEPTH = 4


@dataclass(frozen=True)
class RunSetup:
    seed: str
    urls_file: Path
    concurrency: int
    workdir: Path  # a fresh, empty directory for this run's stores and caches
    chromium: str
    chromium_args: tuple[str, ...]


@dataclass(frozen=True)
class Contestant:
    name: str
    description: str
    command: Callable[[RunSetup], list[str]]
    env: Callable[[RunSetup], dict[str, str]] = lambda setup: {}
    venv: str | None = None  # bench/.venvs/<venv>, from bench/peers/requirements-<venv>.txt
    peer: bool = False  # another project's crawler: --peer-time-limit applies


def _python(contestant: Contestant) -> str:
    if contestant.venv is None:
        return sys.executable
    return str(BENCH / ".venvs" / contestant.venv / "bin" / "python")


def _peer_args(setup: RunSetup) -> list[str]:
    return ["--seed", setup.seed, "--concurrency", str(setup.concurrency), "--depth", str(DEPTH),
            "--chromium", setup.chromium, "--args", json.dumps(list(setup.chromium_args))]


def deepbot_command(seed: str, concurrency: int, store: Path, *extra: str) -> list[str]:
    """DeepBot's run, here and in bench/ab.py."""
    # --per-host-concurrency too: its default (4) would cap N=8 on this one-host site.
    return [sys.executable, "-m", "deepbot", "crawl", "--seed", seed, "--depth", str(DEPTH),
            "--workers", str(concurrency), "--per-host-concurrency", str(concurrency),
            "--store", str(store), "--quiet", *extra]


CONTESTANTS: dict[str, Contestant] = {
    c.name: c
    for c in (
        Contestant(
            "limit", "bare Playwright loop over the known URL list (load), DeepBot's pool settings",
            lambda s: [sys.executable, str(PEERS / "limit.py"), "--urls", str(s.urls_file),
                       "--concurrency", str(s.concurrency)]),
        Contestant(
            "limit-bfs", "bare Playwright BFS: the limit loop plus one evaluate for the links of each page"
            " it expands (depth < 4)",
            lambda s: [sys.executable, str(PEERS / "limit.py"), "--seed", s.seed, "--depth", str(DEPTH),
                       "--concurrency", str(s.concurrency)]),
        Contestant(
            "limit-read", "the limit loop reading every page as DeepBot does (harvest, cookie snapshot)",
            lambda s: [sys.executable, str(PEERS / "limit.py"), "--urls", str(s.urls_file),
                       "--concurrency", str(s.concurrency), "--read"]),
        Contestant(
            "deepbot", "python -m deepbot crawl --depth 4 --workers N --per-host-concurrency N",
            lambda s: deepbot_command(s.seed, s.concurrency, s.workdir / "store.sqlite")),
        Contestant(
            "deepbot-shared", "the same with --shared-session: its workers are tabs of one context, "
            "sharing renderers",
            lambda s: deepbot_command(s.seed, s.concurrency, s.workdir / "store.sqlite", "--shared-session")),
        Contestant(
            "crawlee", "crawlee-python PlaywrightCrawler, enqueue_links (same-hostname), concurrency pinned",
            lambda s: [_python(CONTESTANTS["crawlee"]), str(PEERS / "crawlee_run.py"), *_peer_args(s)],
            env=lambda s: {"CRAWLEE_STORAGE_DIR": str(s.workdir / "crawlee"), "CRAWLEE_PURGE_ON_START": "1"},
            venv="crawlee", peer=True),
        Contestant(
            "scrapy-playwright", "scrapy-playwright spider, BFS, CONCURRENT_REQUESTS=N",
            lambda s: [_python(CONTESTANTS["scrapy-playwright"]), str(PEERS / "scrapy_run.py"),
                       *_peer_args(s), "--abort", MEDIA_URL.pattern],
            venv="scrapy", peer=True),
    )
}
DEFAULT_ORDER = ("limit", "deepbot", "crawlee", "scrapy-playwright")


@dataclass
class RunResult:
    contestant: str
    concurrency: int
    round: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    peak_pss_mb: float
    peak_processes: int
    pages: int  # distinct HTML pages the server served
    total: int
    page_gets: int  # HTML GETs, refetches included
    other_requests: dict[str, int]
    returncode: int | None
    timed_out: bool
    time_limit_s: float
    loadavg: tuple[float, float] = (0.0, 0.0)  # 1-min load average before/after: shows a noisy neighbour
    error: str | None = None
    reported: dict[str, Any] | None = None  # the contestant's own closing JSON line, for reference
    cpu_s_by_role: dict[str, float] = field(default_factory=dict)  # common.process_role -> CPU s
    peak_pss_mb_by_role: dict[str, float] = field(default_factory=dict)  # at the tree's PSS peak
    renderers: int = 0  # the most renderer processes alive at once

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and self.pages == self.total

    def status(self) -> str:
        if self.timed_out:
            return "time limit"
        if self.returncode != 0:
            return f"failed (exit {self.returncode})"
        return "yes" if self.pages == self.total else "incomplete"


@dataclass
class Summary:
    contestant: str
    concurrency: int
    runs: int
    pages_per_s: float  # median
    pages_per_s_min: float
    pages_per_s_max: float
    ratio_vs_limit: float | None  # median of the per-round ratios
    cpu_s: float
    cpu_ms_per_page: float | None
    peak_rss_mb: float
    peak_pss_mb: float
    pages_min: int
    pages_max: int
    total: int
    finished: int  # runs that exited on their own with every page fetched
    statuses: list[str] = field(default_factory=list)
    cpu_ms_per_page_by_role: dict[str, float] = field(default_factory=dict)
    peak_pss_mb_by_role: dict[str, float] = field(default_factory=dict)  # medians over the runs
    renderers: int = 0  # the most renderer processes alive at once, over the runs
    # Each round's ratio to limit-read (the loop reading what DeepBot reads), when it ran.
    ratios_vs_read: list[float] = field(default_factory=list)

    @property
    def ratio_vs_read(self) -> float | None:
        return statistics.median(self.ratios_vs_read) if self.ratios_vs_read else None


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text[-lines:])[-400:]


def _last_json(path: Path) -> dict[str, Any] | None:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None


def run_one(contestant: Contestant, server: Any, setup_base: RunSetup, round_no: int, time_limit: float,
            logs: Path) -> RunResult:
    total = len(server.site.pages)
    with tempfile.TemporaryDirectory(prefix=f"bench-{contestant.name}-") as tmp:
        setup = RunSetup(**{**asdict(setup_base), "workdir": Path(tmp)})
        stem = logs / f"{contestant.name}-c{setup.concurrency}-r{round_no}"
        server.reset()
        load_before = os.getloadavg()[0]
        env = {**os.environ, **contestant.env(setup)}
        m = measure(contestant.command(setup), timeout=time_limit, env=env, cwd=Path(tmp),
                    stdout=stem.with_suffix(".out"), stderr=stem.with_suffix(".err"))
        counts = server.counts()
    loadavg = (round(load_before, 2), round(os.getloadavg()[0], 2))
    error = None
    if m.returncode != 0 and not m.timed_out:
        error = _tail(stem.with_suffix(".err")) or _tail(stem.with_suffix(".out"))
    return RunResult(
        contestant=contestant.name, concurrency=setup.concurrency, round=round_no,
        wall_s=round(m.wall_s, 3), cpu_s=round(m.cpu_s, 2), peak_rss_mb=round(m.peak_rss_mb, 1),
        peak_pss_mb=round(m.peak_pss_mb, 1), peak_processes=m.peak_processes,
        pages=counts.distinct_pages, total=total, page_gets=counts.page_gets,
        other_requests=dict(sorted(counts.other.items())), returncode=m.returncode, timed_out=m.timed_out,
        time_limit_s=round(time_limit, 1), loadavg=loadavg, error=error,
        reported=_last_json(stem.with_suffix(".out")),
        cpu_s_by_role=m.cpu_s_by_role, peak_pss_mb_by_role=m.peak_pss_mb_by_role,
        renderers=m.peak_processes_by_role.get("renderer", 0),
    )


def _round_ratios(runs: Sequence[RunResult], base: dict[tuple[int, int], float]) -> list[float]:
    """Each run's pages/s over the baseline's in the same round (finished baseline runs only)."""
    return [r.pages_per_s / base[key] for r in runs if base.get(key := (r.concurrency, r.round))]


def summarize(results: list[RunResult]) -> list[Summary]:
    def rates_of(name: str) -> dict[tuple[int, int], float]:
        return {(r.concurrency, r.round): r.pages_per_s for r in results if r.contestant == name and r.ok}

    limit, read = rates_of("limit"), rates_of("limit-read")
    groups: dict[tuple[str, int], list[RunResult]] = {}
    for r in results:
        groups.setdefault((r.contestant, r.concurrency), []).append(r)
    out = []
    for (name, conc), runs in groups.items():
        rates = [r.pages_per_s for r in runs]
        ratios = _round_ratios(runs, limit) if name != "limit" else []
        fetched = sum(r.pages for r in runs)
        out.append(Summary(
            contestant=name, concurrency=conc, runs=len(runs),
            pages_per_s=statistics.median(rates), pages_per_s_min=min(rates), pages_per_s_max=max(rates),
            ratio_vs_limit=1.0 if name == "limit" else (statistics.median(ratios) if ratios else None),
            cpu_s=statistics.median(r.cpu_s for r in runs),
            cpu_ms_per_page=1000 * sum(r.cpu_s for r in runs) / fetched if fetched else None,
            peak_rss_mb=statistics.median(r.peak_rss_mb for r in runs),
            peak_pss_mb=statistics.median(r.peak_pss_mb for r in runs),
            pages_min=min(r.pages for r in runs), pages_max=max(r.pages for r in runs), total=runs[0].total,
            finished=sum(r.ok for r in runs), statuses=[r.status() for r in runs],
            cpu_ms_per_page_by_role=_by_role(runs, fetched),
            peak_pss_mb_by_role={role: statistics.median(_fold(r.peak_pss_mb_by_role)[role] for r in runs)
                                 for role in ROLES},
            renderers=max(r.renderers for r in runs),
            ratios_vs_read=[round(x, 3) for x in _round_ratios(runs, read)]
            if not name.startswith("limit") else [],
        ))
    order = {name: i for i, name in enumerate(CONTESTANTS)}
    return sorted(out, key=lambda s: (s.concurrency, order.get(s.contestant, 99)))


# The roles the second table shows (common.process_role); the rest add up in "other".
ROLES = ("python", "node", "browser", "renderer", "gpu", "network", "other")


def _fold(by_name: dict[str, float]) -> dict[str, float]:
    """``common.process_role`` names folded into ROLES."""
    out = dict.fromkeys(ROLES, 0.0)
    for name, value in by_name.items():
        out[name if name in ROLES else "other"] += value
    return out


def _by_role(runs: Sequence[RunResult], fetched: int) -> dict[str, float]:
    totals = dict.fromkeys(ROLES, 0.0)
    for r in runs:
        for role, seconds in _fold(r.cpu_s_by_role).items():
            totals[role] += seconds
    return {role: round(1000 * seconds / fetched, 1) if fetched else 0.0 for role, seconds in totals.items()}


def roles_table(summaries: Sequence[Summary]) -> str:
    """Where each contestant's CPU goes, process by process role: CPU ms per page (PSS MB at the
    peak), and the most renderer processes it had alive at once."""
    lines = ["| contestant | conc. | " + " | ".join(ROLES) + " | renderers |",
             "|" + "---|" * (3 + len(ROLES))]
    for s in summaries:
        cpu, pss = s.cpu_ms_per_page_by_role, s.peak_pss_mb_by_role
        cells = [f"{cpu.get(role, 0.0):.0f} ({pss.get(role, 0.0):.0f})" for role in ROLES]
        lines.append(f"| {s.contestant} | {s.concurrency} | " + " | ".join(cells) + f" | {s.renderers} |")
    return "\n".join(lines)


def table(summaries: Sequence[Summary]) -> str:
    head = ("| contestant | conc. | pages/s median [min–max] | × limit | CPU s | CPU ms/page "
            "| peak RSS MB | peak PSS MB | pages fetched | finished |")
    lines = [head, "|" + "---|" * 10]
    for s in summaries:
        ratio = f"{s.ratio_vs_limit:.2f}" if s.ratio_vs_limit is not None else "–"
        per_page = f"{s.cpu_ms_per_page:.0f}" if s.cpu_ms_per_page is not None else "–"
        pages = f"{s.pages_min}" if s.pages_min == s.pages_max else f"{s.pages_min}–{s.pages_max}"
        bad = sorted({st for st in s.statuses if st != "yes"})
        finished = f"{s.finished}/{s.runs}" + (f" ({', '.join(bad)})" if bad else "")
        lines.append(
            f"| {s.contestant} | {s.concurrency} | {s.pages_per_s:.2f} [{s.pages_per_s_min:.2f}–"
            f"{s.pages_per_s_max:.2f}] | {ratio} | {s.cpu_s:.0f} | {per_page} | {s.peak_rss_mb:.0f} "
            f"| {s.peak_pss_mb:.0f} | {pages}/{s.total} | {finished} |")
    against_read = [s for s in summaries if s.ratio_vs_read is not None]
    if against_read:
        lines.append("\n× limit-read, the loop that reads each page as DeepBot does (median of the rounds; "
                     "each round):")
        lines.extend(f"- {s.contestant} at {s.concurrency}: {s.ratio_vs_read:.2f} "
                     f"({', '.join(f'{x:.2f}' for x in s.ratios_vs_read)})" for s in against_read)
    return "\n".join(lines)


def chart(summaries: Sequence[Summary], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = figure(summaries, title)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def figure(summaries: Sequence[Summary], title: str) -> Any:
    """The chart: pages/s (with each ratio to the limit) and peak memory, side by side."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    names = [n for n in CONTESTANTS if any(s.contestant == n for s in summaries)]
    concs = sorted({s.concurrency for s in summaries})
    by_key = {(s.contestant, s.concurrency): s for s in summaries}
    colors = {"limit": "#888888", "deepbot": "#1f77b4", "crawlee": "#ff7f0e", "scrapy-playwright": "#2ca02c",
              "limit-bfs": "#bbbbbb", "limit-read": "#555555", "deepbot-shared": "#17becf"}
    fig, (ax_rate, ax_mem) = plt.subplots(1, 2, figsize=(12, 5.2))
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        for panel, value in ((ax_rate, "rate"), (ax_mem, "mem")):
            xs, ys, lo, hi, hatches = [], [], [], [], []
            for j, conc in enumerate(concs):
                s = by_key.get((name, conc))
                if s is None:
                    continue
                xs.append(j + (i - (len(names) - 1) / 2) * width)
                if value == "rate":
                    ys.append(s.pages_per_s)
                    lo.append(s.pages_per_s - s.pages_per_s_min)
                    hi.append(s.pages_per_s_max - s.pages_per_s)
                else:
                    ys.append(s.peak_pss_mb)
                    lo.append(0)
                    hi.append(0)
                hatches.append("" if s.finished == s.runs else "//")
            bars = panel.bar(xs, ys, width, yerr=[lo, hi] if value == "rate" else None, capsize=3,
                             color=colors.get(name, "#9467bd"), label=name, edgecolor="white")
            for bar, hatch in zip(bars, hatches, strict=True):
                bar.set_hatch(hatch)
            if value == "rate":
                mine = [c for c in concs if (name, c) in by_key]
                for x, top, conc in zip(xs, [y + h for y, h in zip(ys, hi, strict=True)], mine, strict=True):
                    ratio = by_key[(name, conc)].ratio_vs_limit
                    if name != "limit" and ratio is not None:  # above the error bar, not in it
                        panel.annotate(f"{ratio:.2f}×", (x, top), ha="center", va="bottom", fontsize=7,
                                       xytext=(0, 3), textcoords="offset points")
    labels = ((ax_rate, "pages/s (median, min–max)"), (ax_mem, "peak PSS of the process tree, MB"))
    for panel, ylabel in labels:
        panel.set_xticks(range(len(concs)), [f"concurrency {c}" for c in concs])
        panel.set_ylabel(ylabel)
        panel.grid(axis="y", alpha=0.3)
    ax_rate.set_title("Throughput (× = ratio to the limit, same round)", fontsize=10)
    ax_mem.set_title("Memory (hatched: did not finish the site)", fontsize=10)
    # One legend below both panels: inside a panel it covers the tallest bars. Plain
    # swatches, as a contestant's bars are hatched only where it did not finish.
    handles = [Patch(facecolor=colors.get(n, "#9467bd"), label=n) for n in names]
    handles.append(Patch(facecolor="white", edgecolor="#444444", hatch="//", label="did not finish"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8, frameon=False)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def environment() -> dict[str, Any]:
    def run(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=20, cwd=REPO).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    from importlib.metadata import version

    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": run(["git", "rev-parse", "--short", "HEAD"]),
        "python": platform.python_version(),
        "playwright": version("playwright"),
        "chromium": run([find_chromium(), "--version"]).splitlines()[0] if find_chromium() else "",
        "cpus": os.cpu_count(),
        "loadavg_start": list(os.getloadavg()),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="DeepBot throughput against the bare-Playwright limit and peers.",
                                epilog="Contestants: " + "; ".join(f"{c.name}: {c.description}"
                                                                   for c in CONTESTANTS.values()))
    p.add_argument("--quick", action="store_true",
                   help="smoke run: 40 pages, concurrency 2, one round, 60 s time limit")
    p.add_argument("--pages", type=int, help="pages in the generated site (default 1000)")
    p.add_argument("--assets", type=int, default=0,
                   help="extra scripts and style sheets in every page's head (default 0)")
    p.add_argument("--latency", type=site_module.latency_arg, default=site_module.Latency(),
                   help="seconds the site's server takes to answer each page, or a range (0.5-1.5) within "
                        "which each page's time is fixed (default 0: on loopback with no wait the cores "
                        "are the bound; a real server takes tenths of a second)")
    p.add_argument("--concurrency", help="comma-separated, e.g. 1,4,8 (the default)")
    p.add_argument("--runs", type=int, help="rounds per concurrency (default 3)")
    p.add_argument("--only", help=f"comma-separated contestants (default {','.join(DEFAULT_ORDER)})")
    p.add_argument("--time-limit", type=float,
                   help="seconds per run (default: --time-limit-factor × the limit's time in the same round)")
    p.add_argument("--time-limit-factor", type=float, default=3.0,
                   help="without --time-limit: a run may take this many times the limit's latest run at "
                        "its concurrency, at least 60 s (default 3; 30 min before the limit has run)")
    p.add_argument("--peer-time-limit", type=float,
                   help="seconds per run for crawlee and scrapy-playwright only (their rate is measured "
                   "over whatever they fetched in that time; the run is reported unfinished)")
    p.add_argument("--out", type=Path, default=OUT,
                   help="where the JSON, PNG and logs go (default bench/out)")
    args = p.parse_args(argv)
    quick = args.quick
    args.pages = args.pages or (40 if quick else 1000)
    args.concurrency = [int(c) for c in (args.concurrency or ("2" if quick else "1,4,8")).split(",")]
    args.runs = args.runs or (1 if quick else 3)
    args.only = parse_only(p, args.only, CONTESTANTS, "contestant", default=DEFAULT_ORDER)
    if quick and args.time_limit is None:
        args.time_limit = 60.0
    return args


def prepare(names: list[str], logs: Path) -> dict[str, str]:
    """Make the peers' virtual environments; return {name: why it cannot run} for failures."""
    broken = {}
    for name in names:
        venv = CONTESTANTS[name].venv
        if venv is None:
            continue
        requirements = BENCH / "peers" / f"requirements-{venv}.txt"
        print(f"· checking bench/.venvs/{venv} ({requirements.name}) …", flush=True)
        try:
            ensure_venv(venv, requirements, logs / f"venv-{venv}.log")
        except (OSError, subprocess.CalledProcessError) as exc:
            broken[name] = f"could not install its virtual environment ({exc}); see {logs}/venv-{venv}.log"
    return broken


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    out: Path = args.out
    logs = out / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True, exist_ok=True)
    if not become_subreaper():
        print("warning: cannot adopt orphaned processes; CPU of killed runs may be undercounted",
              file=sys.stderr)
    started = time.perf_counter()
    broken = prepare(args.only, logs)
    names = [n for n in args.only if n not in broken]
    names.sort(key=lambda n: n != "limit")  # the limit opens the first round: it sets the others' time limit
    env = environment()
    site = site_module.build_site(args.pages, assets=args.assets)
    results: list[RunResult] = []
    chromium = find_chromium()
    with site_module.SiteServer(site, latency=args.latency) as server:
        urls_file = out / "urls.txt"
        urls_file.write_text("\n".join(server.page_urls()) + "\n")
        base = RunSetup(seed=server.url, urls_file=urls_file, concurrency=1, workdir=out,
                        chromium=chromium, chromium_args=tuple(chromium_args(_IMAGES_OFF)))
        waits = f", each answered after {args.latency} s" if args.latency else ""
        print(f"site: {len(site.pages)} pages (+{args.assets} assets each{waits}) at {server.url}; "
              f"contestants: {', '.join(names)}; "
              f"concurrency {args.concurrency}; {args.runs} round(s)", flush=True)
        # One untimed pass warms the disk cache for Chromium and the interpreter.
        warm = out / "urls-warmup.txt"
        warm.write_text("\n".join(server.page_urls()[:10]) + "\n")
        subprocess.run([sys.executable, str(PEERS / "limit.py"), "--urls", str(warm)], capture_output=True,
                       timeout=120, check=False)
        failed: set[tuple[str, int]] = set()
        for conc in args.concurrency:
            setup = RunSetup(**{**asdict(base), "concurrency": conc})
            limit_wall: float | None = None  # the latest limit run's time at this concurrency
            for round_no in range(1, args.runs + 1):
                # The order rotates from round to round, so that load which builds up or fades
                # during a round does not always favour the same contestant.
                shift = (round_no - 1) % len(names)
                for name in names[shift:] + names[:shift]:
                    if (name, conc) in failed:
                        continue
                    if CONTESTANTS[name].peer and args.peer_time_limit is not None:
                        bound = args.peer_time_limit
                    elif args.time_limit is not None:
                        bound = args.time_limit
                    elif limit_wall is not None:
                        bound = max(60.0, args.time_limit_factor * limit_wall)
                    else:
                        bound = 1800.0
                    r = run_one(CONTESTANTS[name], server, setup, round_no, bound, logs)
                    results.append(r)
                    if name == "limit" and r.ok:
                        limit_wall = r.wall_s
                    print(f"  c={conc} round {round_no} {name:<18} {r.pages_per_s:6.2f} pages/s  "
                          f"{r.pages}/{r.total} pages  {r.wall_s:6.1f} s  CPU {r.cpu_s:6.1f} s  "
                          f"PSS {r.peak_pss_mb:5.0f} MB  load {r.loadavg[0]:.1f}  {r.status()}"
                          + (f"  — {r.error}" if r.error else ""), flush=True)
                    if r.returncode not in (0, None) and r.pages == 0:
                        failed.add((name, conc))  # a contestant that cannot start won't in round 2 either
    env["loadavg_end"] = list(os.getloadavg())
    env["duration_s"] = round(time.perf_counter() - started, 1)
    summaries = summarize(results)
    report = table(summaries)
    roles = roles_table(summaries)
    print()
    print(report)
    print("\nBy process role: CPU ms per page (PSS MB at the tree's peak)\n")
    print(roles)
    for name, why in broken.items():
        print(f"\n{name}: not run — {why}")
    browser = " ".join(str(env["chromium"]).split()[:2])  # "Chromium 156.0…", not the build banner
    extras = f" + {args.assets} scripts and style sheets" if args.assets else ""
    extras += f", served after {args.latency} s" if args.latency else ""
    title = (f"DeepBot throughput, {len(site.pages)} pages of 20–40 KB{extras}, {env['cpus']} cores, "
             f"{browser}, {env['date'][:10]}")
    data = {
        "environment": env,
        "settings": {"pages": args.pages, "assets": args.assets, "latency_s": str(args.latency),
                     "concurrency": args.concurrency,
                     "runs": args.runs,
                     "contestants": {n: CONTESTANTS[n].description for n in names},
                     "time_limit": args.time_limit, "time_limit_factor": args.time_limit_factor,
                     "peer_time_limit": args.peer_time_limit,
                     "depth": DEPTH},
        "not_run": broken,
        "summary": [{**asdict(s), "ratio_vs_read": s.ratio_vs_read} for s in summaries],
        "runs": [{**asdict(r), "pages_per_s": round(r.pages_per_s, 3)} for r in results],
        "table_markdown": report,
        "roles_table_markdown": roles,
    }
    stem = "throughput-quick" if args.quick else "throughput"
    (out / f"{stem}.json").write_text(json.dumps(data, indent=2) + "\n")
    chart(summaries, out / f"{stem}.png", title)
    print(f"\nwrote {out / (stem + '.json')} and {out / (stem + '.png')} in {env['duration_s']:.0f} s")
    incomplete = [r for r in results if r.contestant == "limit" and not r.ok]
    return 1 if incomplete or not results else 0


if __name__ == "__main__":
    raise SystemExit(main())
