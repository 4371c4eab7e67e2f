"""A/B: DeepBot at a git revision against the working tree, crawls interleaved.

    python bench/ab.py --before HEAD~1 --concurrency 4 --pairs 2
    python bench/ab.py --before main --concurrency 1,8 --pairs 1 --pages 300 --json
    python bench/ab.py --before HEAD~1 --assets 30      # pages with 30 scripts and style sheets

How a change to DeepBot itself is measured (the figures in bench/README.md's
"What changed" sections): the same ``deepbot crawl`` of the benchmark site, run from
a temporary worktree of ``--before`` and from this tree in turn (before then after,
then after then before, …) so that the machine's drift falls on both sides. Each run
is measured like the throughput benchmark's (``common.measure``: wall time, CPU of
the whole process tree, peak PSS); pages are counted by the site's server. Prints a
table and, per concurrency, the median ratio after / before.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import REPO, become_subreaper, load_bench_module, measure

site_module = load_bench_module("site")
throughput = load_bench_module("throughput")  # its DeepBot command, so both measure the same run


def crawl(tree: Path, seed: str, concurrency: int, store: Path, time_limit: float) -> dict[str, Any]:
    """One ``deepbot crawl`` of the site with the DeepBot found in ``tree``."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    cmd = throughput.deepbot_command(seed, concurrency, store)
    # The tree's own package first, whatever the environment has installed.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")])}
    m = measure(cmd, timeout=time_limit, env=env, cwd=tree)
    return {"returncode": m.returncode, "timed_out": m.timed_out, "wall_s": round(m.wall_s, 2),
            "cpu_s": round(m.cpu_s, 2), "peak_pss_mb": round(m.peak_pss_mb)}


def _ratios(rows: list[dict[str, Any]], concurrency: int) -> dict[str, float]:
    """After / before, medians over the pairs, for each measured quantity."""
    out: dict[str, float] = {}
    for key in ("pages_per_s", "cpu_ms_per_page", "peak_pss_mb"):
        before, after = (statistics.median(float(r[key]) for r in rows
                                           if r["side"] == side and r["concurrency"] == concurrency)
                         for side in ("before", "after"))
        if before:
            out[key] = round(after / before, 3)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="git revision to compare against (e.g. HEAD~1)")
    parser.add_argument("--concurrency", default="4", help="comma-separated worker counts (default 4)")
    parser.add_argument("--pairs", type=int, default=2, help="before/after pairs per concurrency (default 2)")
    parser.add_argument("--pages", type=int, default=1000, help="size of the generated site (default 1000)")
    parser.add_argument("--assets", type=int, default=0,
                        help="extra scripts and style sheets in every page (default 0)")
    parser.add_argument("--time-limit", type=float, default=600, help="seconds per crawl before it is killed")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    levels = [int(c) for c in args.concurrency.split(",")]
    become_subreaper()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="deepbot-ab-") as tmp:
        before = Path(tmp) / "before"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet", str(before),
                        args.before], check=True)
        try:
            site = site_module.build_site(args.pages, assets=args.assets)
            with site_module.SiteServer(site) as server:
                for concurrency in levels:
                    for pair in range(args.pairs):
                        sides = [("before", before), ("after", REPO)]
                        for side, tree in sides if pair % 2 == 0 else sides[::-1]:
                            server.reset()
                            row = crawl(tree, server.url, concurrency, Path(tmp) / "store.sqlite",
                                        args.time_limit)
                            pages = server.counts().distinct_pages
                            row.update(side=side, concurrency=concurrency, pair=pair + 1, pages=pages,
                                       pages_per_s=round(pages / row["wall_s"], 2) if row["wall_s"] else 0.0,
                                       cpu_ms_per_page=round(1000 * row["cpu_s"] / max(pages, 1)))
                            rows.append(row)
                            print(f"  c={concurrency} pair {pair + 1} {side:6s}"
                                  f" {row['pages_per_s']:6.2f} pages/s"
                                  f" {row['cpu_ms_per_page']:4d} CPU ms/page"
                                  f" {row['peak_pss_mb']:5d} MB {pages}/{args.pages} pages",
                                  file=sys.stderr, flush=True)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(before)],
                           check=False)
    ratios = {c: _ratios(rows, c) for c in levels}
    if args.json:
        print(json.dumps({"before": args.before, "assets": args.assets, "runs": rows,
                          "after_over_before": ratios}, indent=2))
        return 0
    print("| workers | pair | side | pages/s | CPU ms/page | peak PSS MB | pages |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['concurrency']} | {r['pair']} | {r['side']} | {r['pages_per_s']:.2f} "
              f"| {r['cpu_ms_per_page']} | {r['peak_pss_mb']} | {r['pages']}/{args.pages} |")
    for concurrency, ratio in ratios.items():
        print(f"\nworkers {concurrency}, after / before (medians): "
              + ", ".join(f"{key} {value:.2f}x" for key, value in ratio.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
