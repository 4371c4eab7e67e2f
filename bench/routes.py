"""What one route costs, by kind, on pages that load their libraries: A/B, interleaved.

    python bench/routes.py --before HEAD~1
    python bench/routes.py --before main --routes 60 --pairs 3 --kinds click,form --json

The throughput benchmark crawls links. A deep-web crawl also clicks script-driven
links and submits forms, and those routes watch the page while they act. This runs
the same routes, one browser context, one route after another, with DeepBot from a
temporary worktree of ``--before`` and from this tree in turn (before then after, then
after then before…), against the lab's ``/lab/libs/`` pages (served by this tree):
every page loads 20 scripts and style sheets, as real pages load their libraries.

Kinds: ``link`` (goto), ``click`` (goto, click a script-driven link to the next
page), ``form`` (goto, fill, submit: the results page), ``app`` (the same, to a
results shell that fetches its results once loaded), ``more`` (goto, click a button
that fetches more items into the page), ``shell`` (a link to that results shell). The
fetches are answered after 0.4 s, which dominates those kinds' time.

For each run: wall milliseconds per route, CPU milliseconds per route of the whole
process tree (Python, driver, Chromium; also by process role, in the JSON), and the
protocol messages Python received and sent per route (counted where Playwright's
client dispatches and sends them), and the share of routes whose page was captured
complete (its content there, not a "Loading…" placeholder). Prints a table and, per
kind, the median ratio after / before.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import REPO, ab_sides, median_ratios, print_ab, tree_env, worktree

KINDS = ("link", "click", "form", "app", "more", "shell")
# What each kind's page shows once complete: the share of routes captured with it is
# reported, so that a change cannot buy speed by reading pages before their content.
_COMPLETE = {"link": "Catalogue", "click": "Next page", "form": "Results for", "app": "Third item",
             "more": "Third item", "shell": "Third item"}
_MEASURES = ("wall_ms_per_route", "cpu_ms_per_route", "messages_per_route", "sent_per_route")


def _tree_cpu() -> dict[str, float]:
    """CPU seconds so far of this process and its descendants, by role (``process_role``)."""
    import psutil
    from common import process_role

    me = psutil.Process()
    by_role: dict[str, float] = {}
    for proc in [me, *me.children(recursive=True)]:
        try:
            times, role = proc.cpu_times(), process_role(proc.cmdline())
        except psutil.Error:
            continue
        by_role[role] = by_role.get(role, 0.0) + times.user + times.system
    return by_role


async def _child(base: str, kind: str, routes: int) -> dict[str, Any]:
    """Run ``routes`` routes of ``kind`` with the DeepBot on sys.path; measure the loop."""
    try:
        from playwright._impl.connection import Connection
    except ImportError:  # upstream's module name
        from playwright._impl._connection import Connection  # type: ignore[no-redef]

    import deepbot
    from deepbot.browser.pool import BrowserPool, BrowserSettings
    from deepbot.crawl.visit import VisitOptions, visit
    from deepbot.routes import Route, SessionState, Via, page_identity

    received, sent = [0], [0]
    original, original_send = Connection.dispatch, Connection.send_message_to_server

    def dispatch(self: Any, msg: dict[str, Any]) -> None:
        received[0] += 1
        original(self, msg)

    def send(self: Any, *args: Any, **kwargs: Any) -> Any:
        sent[0] += 1
        return original_send(self, *args, **kwargs)

    Connection.dispatch = dispatch  # type: ignore[method-assign]
    Connection.send_message_to_server = send  # type: ignore[method-assign]
    url = f"{base}/lab/libs/"
    go = f"navigate {json.dumps(url)}"

    def route(n: int) -> Route:
        common: dict[str, Any] = {"key": f"{kind}{n}", "url": url, "program": go}
        if kind == "link":
            return Route(via=Via.LINK, steps=go, **common)
        if kind == "shell":  # a link to the results shell the app form leads to
            shell = f'navigate {json.dumps(f"{base}/lab/libs/app?q=q{n}")}'
            return Route(via=Via.LINK, steps=shell, **{**common, "program": shell})
        acts = {"acts_on": page_identity(url, "")}
        if kind in ("form", "app"):
            form = "#libs-search" if kind == "form" else "#libs-app"
            return Route(via=Via.FORM, steps=f'{go}\nfill "{form} input" "q{n}"',
                         submit=(f'click "{form} button"',), **acts, **common)
        button = "#libs-next" if kind == "click" else "#libs-more"
        return Route(via=Via.SCRIPT, steps=f'{go}\nclick "{button}"', **acts, **common)

    # What a route costs, not how long a page takes to grow: the libs page's "Load more"
    # button, which every kind's harvest would click round after round, is left alone.
    options = VisitOptions(max_scrolls=0)
    async with BrowserPool(1, BrowserSettings()) as pool:
        async with pool.slot() as slot:  # warm: the context, the renderer, the cache
            await visit(route(-1), SessionState(), slot, options)
        received[0] = sent[0] = 0
        complete = 0
        cpu, started = _tree_cpu(), time.perf_counter()
        for n in range(routes):
            async with pool.slot() as slot:
                snapshot = await visit(route(n), SessionState(), slot, options)
            complete += _COMPLETE[kind] in snapshot.text
        wall, after = time.perf_counter() - started, _tree_cpu()
    by_role = {role: round(1000 * (spent - cpu.get(role, 0.0)) / routes, 1) for role, spent in after.items()}
    return {"wall_ms_per_route": round(1000 * wall / routes, 1),
            "cpu_ms_per_route": round(sum(by_role.values()), 1),
            "cpu_ms_per_route_by_role": dict(sorted(by_role.items())),
            "messages_per_route": round(received[0] / routes, 1),
            "sent_per_route": round(sent[0] / routes, 1),
            "complete": round(complete / routes, 2),
            "tree": str(Path(deepbot.__file__).resolve().parents[1])}


def _run(tree: Path, base: str, kind: str, routes: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", base, "--kinds", kind, "--routes", str(routes)]
    done = subprocess.run(cmd, env=tree_env(tree), cwd=tree, capture_output=True, text=True, timeout=600,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{kind} run in {tree} failed:\n{done.stderr[-3000:]}")
    row = dict(json.loads(done.stdout.strip().splitlines()[-1]))
    if Path(row.pop("tree")) != tree.resolve():  # the environment's DeepBot, not the tree's
        raise RuntimeError(f"the run meant for {tree} imported DeepBot from elsewhere")
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="HEAD", help="git revision to compare against (default HEAD)")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    parser.add_argument("--routes", type=int, default=40, help="routes per run (default 40)")
    parser.add_argument("--pairs", type=int, default=2, help="before/after pairs per kind (default 2)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--child", metavar="BASE_URL", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    if unknown := set(kinds) - set(KINDS):
        parser.error(f"unknown kinds: {', '.join(sorted(unknown))}")
    if args.child:
        print(json.dumps(asyncio.run(_child(args.child, kinds[0], args.routes))))
        return 0

    sys.path.insert(0, str(REPO))
    from fixtures.server import FixtureServer

    rows: list[dict[str, Any]] = []
    with worktree(args.before) as before, FixtureServer() as site:
        for kind in kinds:
            for pair in range(args.pairs):
                for side, tree in ab_sides(before, pair):
                    row = _run(tree, site.base_url.rstrip("/"), kind, args.routes)
                    row.update(kind=kind, side=side, pair=pair + 1)
                    rows.append(row)
                    print(f"  {kind:5s} pair {pair + 1} {side:6s} {row['wall_ms_per_route']:7.1f} ms"
                          f" {row['cpu_ms_per_route']:7.1f} CPU ms {row['messages_per_route']:6.1f} msgs in"
                          f" {row['sent_per_route']:5.1f} out"
                          f" {row['complete']:4.0%} complete",
                          file=sys.stderr, flush=True)
    ratios = {kind: median_ratios(rows, _MEASURES, kind=kind) for kind in kinds}
    if args.json:
        print(json.dumps({"before": args.before, "routes": args.routes, "runs": rows,
                          "after_over_before": ratios}, indent=2))
        return 0
    print_ab(rows, {"kind": "kind", "pair": "pair", "side": "side", "ms/route": "wall_ms_per_route",
                    "CPU ms/route": "cpu_ms_per_route", "messages in/route": "messages_per_route",
                    "out/route": "sent_per_route",
                    "complete": "complete"}, ratios)
    return 0


if __name__ == "__main__":
    sys.exit(main())
