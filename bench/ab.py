"""A/B: DeepBot at a git revision against the working tree, crawls interleaved.

    python bench/ab.py --before HEAD~1 --concurrency 4 --pairs 2
    python bench/ab.py --before main --concurrency 1,8 --pairs 1 --pages 300 --json
    python bench/ab.py --before HEAD~1 --assets 30      # pages with 30 scripts and style sheets
    python bench/ab.py --before HEAD~1 --latency 0.5   # a server that takes half a second a page

How a change to DeepBot itself is measured (the figures in bench/README.md's
"What changed" sections): the same ``deepbot crawl`` of the benchmark site, run from
a temporary worktree of ``--before`` and from this tree in turn (before then after,
then after then before, …) so that the machine's drift falls on both sides. Each run
is measured like the throughput benchmark's (``common.measure``: wall time, CPU of
the whole process tree and of DeepBot's own Python process, the steadiest gauge of a
change to DeepBot's own work, and peak PSS); pages are counted by the site's server.
Prints a table and, per concurrency, the median ratio after / before.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import (
    ab_sides,
    become_subreaper,
    load_bench_module,
    measure,
    median_ratios,
    print_ab,
    tree_env,
    worktree,
)

site_module = load_bench_module("site")
throughput = load_bench_module("throughput")  # its DeepBot command, so both measure the same run


def crawl(tree: Path, seed: str, concurrency: int, store: Path, time_limit: float) -> dict[str, Any]:
    """One ``deepbot crawl`` of the site with the DeepBot found in ``tree``."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    cmd = throughput.deepbot_command(seed, concurrency, store)
    m = measure(cmd, timeout=time_limit, env=tree_env(tree), cwd=tree)
    return {"returncode": m.returncode, "timed_out": m.timed_out, "wall_s": round(m.wall_s, 2),
            "cpu_s": round(m.cpu_s, 2), "python_cpu_s": m.cpu_s_by_role.get("python", 0.0),
            "peak_pss_mb": round(m.peak_pss_mb)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="git revision to compare against (e.g. HEAD~1)")
    parser.add_argument("--concurrency", default="4", help="comma-separated worker counts (default 4)")
    parser.add_argument("--pairs", type=int, default=2, help="before/after pairs per concurrency (default 2)")
    parser.add_argument("--pages", type=int, default=1000, help="size of the generated site (default 1000)")
    parser.add_argument("--assets", type=int, default=0,
                        help="extra scripts and style sheets in every page (default 0)")
    parser.add_argument("--latency", type=site_module.latency_arg, default=site_module.Latency(),
                        help="seconds the site's server takes to answer each page, or a range (0.5-1.5) "
                             "within which each page's time is fixed (default 0)")
    parser.add_argument("--time-limit", type=float, default=600, help="seconds per crawl before it is killed")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    levels = [int(c) for c in args.concurrency.split(",")]
    become_subreaper()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="deepbot-ab-") as tmp, worktree(args.before) as before:
        site = site_module.build_site(args.pages, assets=args.assets)
        with site_module.SiteServer(site, latency=args.latency) as server:
            for concurrency in levels:
                for pair in range(args.pairs):
                    for side, tree in ab_sides(before, pair):
                        server.reset()
                        store = Path(tmp) / "store.sqlite"
                        row = crawl(tree, server.url, concurrency, store, args.time_limit)
                        pages = server.counts().distinct_pages
                        row.update(side=side, concurrency=concurrency, pair=pair + 1, pages=pages,
                                   pages_per_s=round(pages / row["wall_s"], 2) if row["wall_s"] else 0.0,
                                   cpu_ms_per_page=round(1000 * row["cpu_s"] / max(pages, 1)),
                                   python_ms_per_page=round(1000 * row["python_cpu_s"] / max(pages, 1), 1))
                        rows.append(row)
                        print(f"  c={concurrency} pair {pair + 1} {side:6s}"
                              f" {row['pages_per_s']:6.2f} pages/s"
                              f" {row['cpu_ms_per_page']:4d} CPU ms/page"
                              f" ({row['python_ms_per_page']:.1f} Python)"
                              f" {row['peak_pss_mb']:5d} MB {pages}/{args.pages} pages",
                              file=sys.stderr, flush=True)
    ratios = {c: median_ratios(rows, ("pages_per_s", "cpu_ms_per_page", "python_ms_per_page", "peak_pss_mb"),
                               concurrency=c)
              for c in levels}
    if args.json:
        print(json.dumps({"before": args.before, "assets": args.assets, "latency_s": str(args.latency),
                          "runs": rows, "after_over_before": ratios}, indent=2))
        return 0
    print_ab(rows, {"workers": "concurrency", "pair": "pair", "side": "side", "pages/s": "pages_per_s",
                    "CPU ms/page": "cpu_ms_per_page", "of it Python": "python_ms_per_page",
                    "peak PSS MB": "peak_pss_mb", "pages": "pages"},
             {f"workers {c}": ratio for c, ratio in ratios.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
