"""The ``deepbot`` command: one sub-command per verb, each in its own module.

A command module exposes ``register(subparsers)`` which adds its parser and sets
``func`` to a callable taking the parsed args and returning an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from deepbot.errors import DeepBotError

# Module names under deepbot.cli, in the order `deepbot --help` lists them.
COMMANDS: tuple[str, ...] = (
    "demo", "crawl", "recrawl", "worker", "learn", "login", "status", "search", "export", "replay", "analyze",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="deepbot",
        description="A crawler for the deep web: query forms, scripts, sessions, replayable sequences.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"deepbot.cli.{name}").register(sub)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"deepbot {version('deepbot')}"
    except PackageNotFoundError:
        return "deepbot (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except DeepBotError as exc:
        print(f"deepbot: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        if exc.filename is None:  # not a path the user gave: a bug's traceback is worth more
            raise
        print(f"deepbot: error: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("deepbot: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
