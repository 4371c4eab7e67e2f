"""``deepbot crawl``: crawl from seeds (and through domain forms) into a store."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from deepbot.config import CrawlConfig
from deepbot.config.reference import describe, describe_opposite
from deepbot.store.open import is_postgres_url, store_target

# flag name -> config key; every flag has a config key of the same name.
_FLAGS = ("seed", "domain", "depth", "workers", "max_pages", "max_result_pages", "max_options", "include",
          "exclude",
          "store", "keywords", "user_agent", "min_delay", "per_host_concurrency", "give_up_after", "session",
          "topic", "like", "learn_from", "max_scrolls", "scroll_time", "max_calendar_steps", "scope",
          "allow_origin", "proxy", "block_private", "pattern", "max_body_mb", "max_self_navigations",
          "explore_after_form")


# Flags whose config key is spelled otherwise; the two booleans set their key to false.
_KEYS = {"seed": "seeds", "domain": "domains", "ignore_robots": "obey_robots", "headed": "headless",
         "allow_origin": "allow_origins"}


_ALL = "all"


def _count_or_all(text: str) -> int | str:
    """A count, or 'all' (no bound: the config's null)."""
    if text.strip().lower() == _ALL:
        return _ALL
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number or 'all', not {text!r}") from None


def register(sub: Any) -> None:
    # Each option's help is its CrawlConfig field's description and default (config/reference.py),
    # so --help and docs/reference/config.md say the same and cannot drift from the model.
    p: argparse.ArgumentParser = sub.add_parser(
        "crawl", help="crawl sites (and their query forms) into a store; rerun to resume",
        description="Crawl from seeds, following links, script-driven anchors and, with --domain, "
        "relevant query forms. Running the same command again on the same store resumes.",
        epilog="Every option is also a key of a --config YAML file, where more keys are set "
        "(docs/reference/config.md).")
    p.add_argument("--seed", action="append", metavar="URL", help=describe("seeds") + " Repeatable.")
    p.add_argument("--domain", action="append", metavar="FILE", type=Path,
                   help=describe("domains") + " Repeatable.")
    p.add_argument("--config", type=Path, metavar="FILE", help="A crawl config YAML file; flags override it.")
    p.add_argument("--depth", type=int, metavar="N", help=describe("depth"))
    p.add_argument("--workers", type=int, metavar="N", help=describe("workers"))
    p.add_argument("--max-pages", type=int, metavar="N", help=describe("max_pages"))
    p.add_argument("--max-result-pages", type=int, metavar="N", help=describe("max_result_pages"))
    p.add_argument("--max-calendar-steps", type=int, metavar="N", help=describe("max_calendar_steps"))
    p.add_argument("--max-options", type=int, metavar="N", help=describe("max_options"))
    p.add_argument("--explore-after-form", type=_count_or_all, metavar="N|all",
                   help=describe("explore_after_form") + " 'all': no such bound.")
    p.add_argument("--max-scrolls", type=int, metavar="N", help=describe("max_scrolls"))
    p.add_argument("--scroll-time", type=float, metavar="SECONDS", help=describe("scroll_time"))
    p.add_argument("--include", action="append", metavar="REGEX", help=describe("include") + " Repeatable.")
    p.add_argument("--exclude", action="append", metavar="REGEX", help=describe("exclude") + " Repeatable.")
    p.add_argument("--scope", choices=("origin", "host", "domain", "any"), help=describe("scope"))
    p.add_argument("--allow-origin", action="append", metavar="ORIGIN",
                   help=describe("allow_origins") + " Repeatable.")
    p.add_argument("--block-private", action=argparse.BooleanOptionalAction, help=describe("block_private"))
    p.add_argument("--proxy", metavar="URL", help=describe("proxy"))
    p.add_argument("--store", type=store_target, metavar="FILE|URL", help=describe("store"))
    p.add_argument("--session", type=Path, metavar="FILE", help=describe("session"))
    p.add_argument("--keywords", metavar="QUERY",
                   help=describe("keywords") + ' Example: \'java AND (xml OR "web services")\'.')
    p.add_argument("--topic", metavar="WORDS", help=describe("topic"))
    p.add_argument("--learn-from", type=Path, metavar="STORE", help=describe("learn_from"))
    p.add_argument("--like", metavar="URL", help=describe("like"))
    p.add_argument("--pattern", type=Path, metavar="FILE", help=describe("pattern"))
    p.add_argument("--user-agent", metavar="TEXT", help=describe("user_agent"))
    p.add_argument("--min-delay", type=float, metavar="SECONDS", help=describe("min_delay"))
    p.add_argument("--max-body-mb", type=float, metavar="MB", help=describe("max_body_mb"))
    p.add_argument("--max-self-navigations", type=int, metavar="N", help=describe("max_self_navigations"))
    p.add_argument("--per-host-concurrency", type=int, metavar="N", help=describe("per_host_concurrency"))
    p.add_argument("--give-up-after", type=int, metavar="N", help=describe("give_up_after"))
    p.add_argument("--ignore-robots", action="store_true",
                   help=describe_opposite("obey_robots", "Do not obey robots.txt."))
    p.add_argument("--obey-meta-robots", action="store_true", help=describe("obey_meta_robots"))
    p.add_argument("--shared-session", action="store_true", help=describe("shared_session"))
    p.add_argument("--headed", action="store_true",
                   help=describe_opposite("headless", "Show the browser's windows."))
    p.add_argument("--quiet", "-q", action="store_true", help="No progress display.")
    p.add_argument("--json", action="store_true",
                   help="Print a JSON summary on stdout at the end; the words go to stderr.")
    p.set_defaults(func=run)


def config_flags() -> dict[str, list[str]]:
    """The flags that set each config key, read from the crawl command's own parser."""
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    register(sub)
    flags: dict[str, list[str]] = {}
    for action in sub.choices["crawl"]._actions:
        key = _KEYS.get(action.dest, action.dest)
        if key in CrawlConfig.model_fields:
            flags.setdefault(key, []).append(max(action.option_strings, key=len))
    return flags


def config_from_args(args: argparse.Namespace) -> CrawlConfig:
    from deepbot.config.load import load_config

    values: dict[str, Any] = {}
    if args.config is not None:
        values = load_config(args.config).model_dump(exclude_unset=True)
    for flag in _FLAGS:
        value = getattr(args, flag)
        if value is None:
            continue
        key = _KEYS.get(flag, flag)
        values[key] = tuple(value) if isinstance(value, list) else None if value == _ALL else value
    if args.ignore_robots:
        values["obey_robots"] = False
    if args.obey_meta_robots:
        values["obey_meta_robots"] = True
    if args.headed:
        values["headless"] = False
    if args.shared_session:
        values["shared_session"] = True
    from deepbot.config.load import validate_config

    return validate_config(values, source="command line")


def run(args: argparse.Namespace) -> int:
    from deepbot.crawl.runner import INTERRUPTED_EXIT, crawl_and_report

    config = config_from_args(args)
    if not config.seeds and config.pattern is None:  # a pattern names its own entry page
        print("deepbot crawl: give at least one --seed URL (or seeds: in --config)", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S",
                        stream=sys.stderr)
    try:
        if is_postgres_url(config.store):  # a crawl several machines share: this process is one worker
            from deepbot.cli.worker import crawl_shared

            return crawl_shared(config, progress=not args.quiet, as_json=args.json)
        return asyncio.run(crawl_and_report(config, progress=not args.quiet, as_json=args.json))
    except KeyboardInterrupt:
        # Ctrl-C while the browser started or the stores closed: the crawl itself says more
        # (runner); here nothing was lost either, and the same command resumes.
        print("stopped: interrupted (Ctrl-C) — run the same command to resume", file=sys.stderr)
        return INTERRUPTED_EXIT
