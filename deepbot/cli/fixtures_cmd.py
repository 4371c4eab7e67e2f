"""``deepbot fixtures serve``: serve the bundled fixture sites for a person to browse."""

from __future__ import annotations

import argparse
import time
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser("fixtures", help="serve the bundled fixture sites")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    serve = actions.add_parser("serve", help="serve on 127.0.0.1 until Ctrl-C")
    serve.add_argument("--port", type=int, default=8765)
    serve.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from fixtures.server import FixtureServer

    server = FixtureServer(port=args.port).start()
    print(f"Fixture sites at {server.base_url}/  (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        server.stop()
