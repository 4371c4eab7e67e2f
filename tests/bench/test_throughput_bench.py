"""The throughput benchmark's own checks: its site is what it claims, and it runs end to end."""

from __future__ import annotations

import argparse
import fcntl
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load_site() -> ModuleType:
    # By path: ``import site`` would give the standard library's module.
    if "bench_site" in sys.modules:
        return sys.modules["bench_site"]
    spec = importlib.util.spec_from_file_location("bench_site", BENCH / "site.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_site"] = module
    spec.loader.exec_module(module)
    return module


class _Page(HTMLParser):
    """Counts what the benchmark asks a page to have, with a real HTML parser."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.tables = self.inline_scripts = 0
        self.nav = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "a" and attributes.get("href"):
            self.hrefs.append(attributes["href"] or "")
        self.tables += tag == "table"
        self.inline_scripts += tag == "script" and "src" not in attributes
        self.nav = self.nav or tag == "nav"


@pytest.fixture(scope="module")
def bench_site() -> ModuleType:
    return _load_site()


def test_site_has_1000_realistic_pages_all_within_depth_4(bench_site: ModuleType) -> None:
    site = bench_site.build_site(1000)
    assert len(site.pages) == 1000
    depths = {"/": 0}
    queue = deque(["/"])
    while queue:  # BFS over links found by an HTML parser, not by the generator's own bookkeeping
        path = queue.popleft()
        page = _Page()
        page.feed(site.pages[path].decode())
        size = len(site.pages[path])
        assert 20_000 <= size <= 40_960, (path, size)
        assert 30 <= len(page.hrefs) <= 60, (path, len(page.hrefs))
        assert page.tables >= 1 and page.inline_scripts >= 1 and page.nav, path
        for href in page.hrefs:
            target = href.split("#", 1)[0]
            if target in site.pages and target not in depths:
                depths[target] = depths[path] + 1
                queue.append(target)
    assert len(depths) == len(site.pages)
    assert max(depths.values()) <= 4
    assert bench_site.bfs_depths(site) == depths
    assert bench_site.build_site(1000).pages == site.pages  # deterministic


def test_site_with_assets_links_them_from_every_page_and_serves_them_cached(bench_site: ModuleType) -> None:
    site = bench_site.build_site(20, assets=6)
    extra = sorted(p for p in site.assets if p.startswith("/static/lib-"))
    assert [p.rsplit(".", 1)[1] for p in extra] == ["js", "js", "css", "js", "js", "css"]
    for html in site.pages.values():
        head = html.split(b"</head>", 1)[0].decode()
        assert all(f"'{p}'" in head for p in extra)
    assert bench_site.build_site(20).pages != site.pages and len(bench_site.build_site(20).assets) == 3
    with bench_site.SiteServer(site) as server, \
            urllib.request.urlopen(server.url + extra[0].lstrip("/"), timeout=10) as response:
        assert response.headers["Cache-Control"] == "max-age=3600"
        assert response.read() == site.assets[extra[0]][0]
    with pytest.raises(ValueError, match="assets"):
        bench_site.build_site(20, assets=-1)


def test_server_counts_page_gets_and_allows_robots(bench_site: ModuleType) -> None:
    site = bench_site.build_site(20)
    with bench_site.SiteServer(site) as server:
        robots = urllib.request.urlopen(server.url + "robots.txt", timeout=10).read().decode()
        assert "Allow: /" in robots and "Disallow" not in robots
        urls = server.page_urls()
        assert urls[0] == server.url and len(urls) == 20
        for url in [*urls[:5], urls[0]]:
            with urllib.request.urlopen(url, timeout=10) as response:
                assert response.headers["Content-Type"].startswith("text/html")
        counts = server.counts()
        assert (counts.distinct_pages, counts.page_gets) == (5, 6)
        assert counts.other == {"200 /robots.txt": 1}
        server.reset()
        assert server.counts().page_gets == 0


@pytest.mark.timeout(60)
def test_server_latency_delays_each_page_not_its_assets_and_waits_overlap(bench_site: ModuleType) -> None:
    site = bench_site.build_site(20)
    with pytest.raises(ValueError, match="latency"):
        bench_site.SiteServer(site, latency=-1)
    for bad in ("-1", "soon", "nan", "1-0.5", "0.5-", "-0.5-1"):  # the flag of site.py, throughput.py, ab.py
        with pytest.raises(argparse.ArgumentTypeError):
            bench_site.latency_arg(bad)
    assert bench_site.latency_arg("0.5") == bench_site.Latency(0.5)
    spread = bench_site.latency_arg("0.5-1.5")
    assert str(spread) == "0.5-1.5" and spread.mean == 1.0
    waits = [spread.for_path(path) for path in site.pages]
    # each page's wait is its own and the same every time, spread over the whole range
    assert waits == [spread.for_path(path) for path in site.pages]
    assert all(0.5 <= wait <= 1.5 for wait in waits) and len(set(waits)) == len(waits)
    assert min(waits) < 0.8 and max(waits) > 1.2
    with bench_site.SiteServer(site, latency=1.0) as server:
        urls = server.page_urls()

        def get(url: str) -> float:
            started = time.perf_counter()
            with urllib.request.urlopen(url, timeout=30) as response:
                response.read()
            return time.perf_counter() - started

        assert get(server.url + "static/site.css") < 1.0  # an asset answers at once
        with ThreadPoolExecutor(4) as pool:
            started = time.perf_counter()
            waits = list(pool.map(get, urls[:4]))
            together = time.perf_counter() - started
        assert min(waits) >= 1.0
        assert together < 3.0  # four pages waited side by side, not one after another (4 s)
        assert server.counts().distinct_pages == 4


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(180)
def test_quick_run_end_to_end(tmp_path: Path) -> None:
    pytest.importorskip("psutil", reason="bench requirements: pip install -r bench/requirements.txt")
    pytest.importorskip("matplotlib", reason="bench requirements: pip install -r bench/requirements.txt")
    done = subprocess.run(
        [sys.executable, str(BENCH / "throughput.py"), "--quick", "--pages", "20", "--assets", "3",
         "--only", "limit,deepbot", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=170, check=False)  # ~30 s on an idle 2-core machine
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads((tmp_path / "throughput-quick.json").read_text())
    rows = {row["contestant"]: row for row in data["summary"]}
    assert set(rows) == {"limit", "deepbot"}
    assert data["settings"]["assets"] == 3
    assert rows["limit"]["pages_min"] == rows["limit"]["total"] == 20
    assert rows["limit"]["cpu_s"] > 0 and rows["limit"]["peak_rss_mb"] > 50  # Chromium was measured
    assert rows["deepbot"]["ratio_vs_limit"] is not None or rows["deepbot"]["finished"] == 0
    # Each run's CPU, split by process role: the crawler's Python, the driver, Chromium's processes.
    for name in ("limit", "deepbot"):
        by_role = rows[name]["cpu_ms_per_page_by_role"]
        assert min(by_role[role] for role in ("python", "node", "browser", "renderer")) > 0, (name, by_role)
        assert rows[name]["peak_pss_mb_by_role"]["renderer"] > 10, rows[name]["peak_pss_mb_by_role"]
    assert rows["limit"]["renderers"] == 2  # one per context: two workers
    assert rows["deepbot"]["renderers"] >= 2
    run = next(r for r in data["runs"] if r["contestant"] == "deepbot")
    assert sum(run["cpu_s_by_role"].values()) == pytest.approx(run["cpu_s"], rel=0.35)  # sampled vs rusage
    assert (tmp_path / "throughput-quick.png").stat().st_size > 10_000
    assert "| limit | 2 |" in done.stdout and "By process role" in done.stdout


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(120)
def test_phases_times_every_stage_of_a_small_crawl() -> None:
    report = _json_report("phases.py", "--pages", "15", "--reference-pages", "4", timeout=110)
    assert report["pages"] == 15 and report["wall_ms_per_page"] > 0
    stages = {row["stage"].split(":")[0]: row for row in report["stages"]}
    for stage in ("navigate", "harvest", "session", "visit", "chain", "commit", "route"):
        assert stages[stage]["n"] == 15 and stages[stage]["median_ms"] > 0, stage
    assert stages["reference"]["n"] == 4
    # The stages are nested: a route takes at least as long as its visit, a visit as its navigation.
    assert stages["route"]["mean_ms"] >= stages["visit"]["mean_ms"] >= stages["navigate"]["mean_ms"]


def _json_report(script: str, *args: str, timeout: float = 140) -> dict[str, Any]:
    """Run ``bench/SCRIPT ARGS --json``: its report; a failed run fails the test with its output."""
    done = subprocess.run([sys.executable, str(BENCH / script), *args, "--json"],
                          capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _worktrees() -> str | None:
    """``git worktree list`` of the checkout (None: not a git checkout)."""
    listed = subprocess.run(["git", "-C", str(BENCH.parent), "worktree", "list"],
                            capture_output=True, text=True, check=False)
    return listed.stdout if listed.returncode == 0 else None


def _ab_report(script: str, *args: str) -> tuple[dict[str, Any], str]:
    """Run an A/B bench script against HEAD; its JSON report and the worktrees before it."""
    pytest.importorskip("psutil", reason="bench requirements: pip install -r bench/requirements.txt")
    worktrees = _worktrees()
    if worktrees is None:
        pytest.skip(f"bench/{script} compares git revisions: this is not a git checkout")
    return _json_report(script, "--before", "HEAD", *args), worktrees


@pytest.fixture
def worktree_lock() -> Iterator[None]:
    """Both A/B tests add a temporary worktree and check it is gone again: they must not
    overlap, whichever xdist workers run them (the group alone did not always hold)."""
    with open(Path(tempfile.gettempdir()) / "deepbot-worktree-tests.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# Both A/B tests add a temporary worktree and check it is gone again: one worker runs both.
@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(150)
@pytest.mark.xdist_group("worktrees")
@pytest.mark.usefixtures("worktree_lock")
def test_ab_crawls_a_revision_and_the_tree_in_turn() -> None:
    report, worktrees = _ab_report("ab.py", "--concurrency", "1", "--pairs", "2", "--pages", "12")
    sides = [(run["pair"], run["side"]) for run in report["runs"]]
    assert sides == [(1, "before"), (1, "after"), (2, "after"), (2, "before")]  # A B, then B A
    for run in report["runs"]:
        assert run["returncode"] == 0 and run["pages"] == 12 and run["cpu_ms_per_page"] > 0, run
        assert run["peak_pss_mb"] > 50  # Chromium was measured
        # DeepBot's own Python process is told apart from the browser's, and is a part of the whole
        assert 0 < run["python_ms_per_page"] < run["cpu_ms_per_page"], run
    assert set(report["after_over_before"]["1"]) == {"pages_per_s", "cpu_ms_per_page", "python_ms_per_page",
                                                     "peak_pss_mb"}
    # The temporary worktree of the revision is gone again.
    assert _worktrees() == worktrees


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(150)
@pytest.mark.xdist_group("worktrees")
@pytest.mark.usefixtures("worktree_lock")
def test_routes_bench_runs_each_kind_from_a_revision_and_the_tree() -> None:
    report, worktrees = _ab_report("routes.py", "--routes", "3", "--pairs", "1", "--kinds", "link,form")
    assert [(run["kind"], run["side"]) for run in report["runs"]] == [
        ("link", "before"), ("link", "after"), ("form", "before"), ("form", "after")]
    for run in report["runs"]:
        # A link route receives at least its goto's reply and its harvest's; a form
        # route, more (its fill, its submission, the page it led to).
        assert run["wall_ms_per_route"] > 0 and run["messages_per_route"] >= 2, run
        assert run["sent_per_route"] >= 2 and run["complete"] == 1.0, run  # goto and harvest, at least
    by_kind = {(run["kind"], run["side"]): run["messages_per_route"] for run in report["runs"]}
    assert by_kind[("form", "after")] > by_kind[("link", "after")]
    assert set(report["after_over_before"]["form"]) == {
        "wall_ms_per_route", "cpu_ms_per_route", "messages_per_route", "sent_per_route"}
    assert _worktrees() == worktrees


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(150)
def test_reading_measures_each_variant_against_the_bare_loop() -> None:
    pytest.importorskip("psutil", reason="bench requirements: pip install -r bench/requirements.txt")
    variants = ["goto", "goto+cdp", "goto+light", "goto+harvest+cookies", "goto+harvest-cdp"]
    report = _json_report("reading.py", "--pages", "8", "--rounds", "2", "--concurrency", "2",
                          "--only", ",".join(variants))
    # Interleaved: one order, then the reverse, so that drift falls on every variant.
    assert [(r["round"], r["variant"]) for r in report["runs"]] == [
        *((1, v) for v in variants), *((2, v) for v in reversed(variants))]
    for run in report["runs"]:
        assert run["returncode"] == 0 and run["pages"] == 8 and run["complete"], run  # counted by the server
        assert run["cpu_ms_per_page_by_role"]["renderer"] > 0 and run["cpu_ms_per_page_by_role"]["node"] > 0
    summary = {s["variant"]: s for s in report["summary"]}
    assert list(summary) == variants and all(s["rounds"] == 2 for s in summary.values())
    assert summary["goto"]["cpu_ms_over_goto"] == 0
    harvest = summary["goto+harvest+cookies"]
    over = harvest["cpu_ms_per_page"] - summary["goto"]["cpu_ms_per_page"]
    assert harvest["cpu_ms_over_goto"] == round(over, 1)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(150)
def test_memory_counts_the_renderers_of_each_layout_of_the_same_loop() -> None:
    pytest.importorskip("psutil", reason="bench requirements: pip install -r bench/requirements.txt")
    layouts = ["contexts", "contexts+limit", "tabs+limit", "page-per-url"]
    report = _json_report("memory.py", "--pages", "8", "--rounds", "1", "--concurrency", "3",
                          "--process-limit", "1", "--only", ",".join(layouts))
    runs = {r["layout"]: r for r in report["runs"]}
    assert list(runs) == layouts
    for run in runs.values():
        assert run["returncode"] == 0 and run["pages"] == 8 and run["complete"], run  # counted by the server
        assert run["peak_pss_mb"] > 0  # PSS is read every 0.5 s: this short a run may show no renderer's
    # A renderer per context, whatever the limit; the tabs of one context share one under it
    # (the sampler may catch two at once for a moment, one starting as the other goes: CI
    # once saw 2), never one a tab.
    assert runs["contexts"]["renderers"] == runs["contexts+limit"]["renderers"] == 3
    assert runs["tabs+limit"]["renderers"] in (1, 2)
    summary = {s["layout"]: s for s in report["summary"]}
    assert summary["contexts"]["peak_pss_mb_x"] == 1.0
    assert summary["tabs+limit"]["peak_pss_mb_x"] == round(
        summary["tabs+limit"]["peak_pss_mb"] / summary["contexts"]["peak_pss_mb"], 2)


def test_memory_rejects_an_unknown_layout() -> None:
    done = subprocess.run([sys.executable, str(BENCH / "memory.py"), "--only", "tabs,heap"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "unknown layout(s) heap" in done.stderr


def test_reading_rejects_an_unknown_variant() -> None:
    done = subprocess.run([sys.executable, str(BENCH / "reading.py"), "--only", "goto,teleport"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "unknown variant(s) teleport" in done.stderr


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(120)
def test_limit_read_reads_every_page_the_limit_only_loads(bench_site: ModuleType, tmp_path: Path) -> None:
    site = bench_site.build_site(12)
    with bench_site.SiteServer(site) as server:
        urls = tmp_path / "urls.txt"
        urls.write_text("\n".join(server.page_urls()) + "\n")
        reports = {}
        for flags in ([], ["--read"]):
            server.reset()
            done = subprocess.run(
                [sys.executable, str(BENCH / "peers" / "limit.py"), "--urls", str(urls), "--concurrency", "2",
                 *flags], capture_output=True, text=True, timeout=100, check=False)
            assert done.returncode == 0, done.stderr[-2000:]
            reports[bool(flags)] = json.loads(done.stdout.splitlines()[-1])
            assert server.counts().distinct_pages == 12  # both loaded every page
    assert reports[False]["pages"] == reports[True]["pages"] == 12
    assert reports[False]["read_chars"] == 0
    # The harvest of each page holds its DOM (the bench pages are 20 KB or more) and its text.
    assert reports[True]["read_chars"] > 12 * 20 * 1024


def _common() -> ModuleType:
    """bench/common.py, imported as the benchmarks import it (bench/ on the path)."""
    sys.path.insert(0, str(BENCH))
    try:
        import common
    finally:
        sys.path.remove(str(BENCH))
    return common


def test_process_roles_name_chromiums_processes() -> None:
    process_role = _common().process_role
    shell = "/usr/lib/chromium/chromium-headless-shell"
    assert process_role([shell, "--headless=old", "--remote-debugging-pipe"]) == "browser"
    assert process_role(["/usr/lib/chromium/chromium", "--type=renderer", "--lang=en"]) == "renderer"
    assert process_role([shell, "--type=gpu-process"]) == "gpu"
    utility = [shell, "--type=utility"]
    assert process_role([*utility, "--utility-sub-type=network.mojom.NetworkService"]) == "network"
    assert process_role([*utility, "--utility-sub-type=audio.mojom.AudioService"]) == "utility"
    assert process_role(["/x/.venv/bin/python3.11", "-m", "deepbot"]) == "python"
    # The driver's path holds "python" too (.venv/lib/python3.11/site-packages/…): its name decides.
    assert process_role(["/x/lib/python3.11/site-packages/playwright/driver/node", "cli.js"]) == "node"
    assert process_role([]) == "other"


def test_sampler_keeps_the_role_of_a_process_as_it_exits() -> None:
    sampler_class = _common()._Sampler

    class Exiting:
        """A renderer being torn down: Linux gives an empty /proc/PID/cmdline once the
        process has released its memory, before it is a zombie (psutil returns [])."""

        pid = 4242

        def __init__(self) -> None:
            self.cmdline_now = ["/usr/lib/chromium/chromium", "--type=renderer"]

        def cmdline(self) -> list[str]:
            return self.cmdline_now

    sampler = sampler_class()
    proc = Exiting()
    assert sampler._role(proc, tick=1) == "renderer"  # type: ignore[arg-type]
    proc.cmdline_now = []
    # Asked again on every 10th sample: its CPU must stay with the role it ran as.
    assert sampler._role(proc, tick=10) == "renderer"  # type: ignore[arg-type]
    sampler._cpu[proc.pid] = 1.5
    assert sampler.cpu_by_role() == {"renderer": 1.5}


def test_sampler_names_a_forked_child_by_what_it_becomes_at_once() -> None:
    # A renderer shows the zygote's command line for its first ~15 ms, the driver Python's
    # until it execs: a short run (a second) must not leave their CPU with those roles.
    sampler = _common()._Sampler()

    class Forked:
        def __init__(self, pid: int, *cmdlines: list[str]) -> None:
            self.pid, self.cmdlines = pid, list(cmdlines)

        def cmdline(self) -> list[str]:
            return self.cmdlines.pop(0) if len(self.cmdlines) > 1 else self.cmdlines[0]

    chromium = "/usr/lib/chromium/chromium"
    renderer = Forked(1, [chromium, "--type=zygote"], [chromium, "--type=renderer"])
    driver = Forked(2, ["/x/.venv/bin/python3.11", "-m", "deepbot"], ["/x/driver/node", "cli.js"])
    for proc in (renderer, driver):
        assert sampler._role(proc, tick=1) in ("zygote", "python")  # type: ignore[arg-type]
        sampler._cpu[proc.pid] = 1.0
    # the next sample, not the tenth, names them
    assert [sampler._role(p, tick=2) for p in (renderer, driver)] == ["renderer", "node"]  # type: ignore[arg-type]
    assert sampler.cpu_by_role() == {"renderer": 1.0, "node": 1.0}
    # the zygote itself stays the zygote
    zygote = Forked(3, [chromium, "--type=zygote"])
    assert {sampler._role(zygote, tick) for tick in range(1, 30)} == {"zygote"}  # type: ignore[arg-type]


def _throughput() -> ModuleType:
    return _common().load_bench_module("throughput")


def _run_result(throughput: ModuleType, name: str, round_no: int, wall_s: float, pages: int = 100) -> Any:
    """One run at 4 workers over a 100-page site, ``pages`` of them fetched in ``wall_s``."""
    return throughput.RunResult(
        contestant=name, concurrency=4, round=round_no, wall_s=wall_s, cpu_s=1.0, peak_rss_mb=1.0,
        peak_pss_mb=1.0, peak_processes=3, pages=pages, total=100, page_gets=pages, other_requests={},
        returncode=0, timed_out=False, time_limit_s=60.0)


def test_summary_takes_each_round_ratio_to_the_limit_and_to_limit_read() -> None:
    throughput = _throughput()
    run = partial(_run_result, throughput)

    results = [run("limit", 1, 10), run("limit-read", 1, 12.5), run("deepbot", 1, 20),
               run("limit", 2, 5), run("limit-read", 2, 10), run("deepbot", 2, 8),
               # A limit-read run that did not finish is no baseline: round 3 has no ratio to it.
               run("limit", 3, 10), run("limit-read", 3, 60, pages=40), run("deepbot", 3, 10)]
    rows = {s.contestant: s for s in throughput.summarize(results)}
    deepbot = rows["deepbot"]
    assert deepbot.ratios_vs_read == [0.625, 1.25]  # (100/20)/(100/12.5), (100/8)/(100/10)
    assert deepbot.ratio_vs_read == pytest.approx(0.9375)
    assert deepbot.ratio_vs_limit == pytest.approx(0.625)  # median of 0.5, 0.625 and 1.0
    assert rows["limit-read"].ratios_vs_read == [] and rows["limit"].ratio_vs_read is None
    text = throughput.table(list(rows.values()))
    assert "× limit-read" in text and "- deepbot at 4: 0.94 (0.62, 1.25)" in text


def test_chart_puts_the_references_first_and_its_legend_below_the_bars() -> None:
    pytest.importorskip("matplotlib", reason="bench requirements: pip install -r bench/requirements.txt")
    import matplotlib

    matplotlib.use("Agg")
    throughput = _throughput()
    run = partial(_run_result, throughput)

    # Given in the order a run interleaves them; the peer's second round did not finish.
    results = [run("limit", 1, 10), run("scrapy-playwright", 1, 40), run("deepbot", 1, 20),
               run("limit-read", 1, 12), run("limit", 2, 10), run("scrapy-playwright", 2, 60, pages=70),
               run("deepbot", 2, 16), run("limit-read", 2, 12)]
    summaries = throughput.summarize(results)
    order = ["limit", "limit-read", "deepbot", "scrapy-playwright"]
    assert [s.contestant for s in summaries] == order  # references before DeepBot, peers after
    fig = throughput.figure(summaries, "test")
    try:
        rate, memory = fig.axes
        assert not rate.get_legend() and not memory.get_legend()  # a legend inside covers bars
        (legend,) = fig.legends
        assert [t.get_text() for t in legend.get_texts()] == [*order, "did not finish"]
        handles = legend.legend_handles
        assert [h.get_hatch() for h in handles[:-1]] == [None] * 4 and handles[-1].get_hatch() == "//"
        # scrapy-playwright finished one of two rounds: its bar is hatched as not finished.
        assert rate.patches[-1].get_hatch() == "//"
        # Each ratio sits above its bar's error bar: deepbot ran at 5 and 6.25 pages/s.
        deepbot_label = next(t for t in rate.texts if t.get_text() == "0.56×")  # median of 0.5, 0.625
        assert deepbot_label.xy[1] == pytest.approx(6.25)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
