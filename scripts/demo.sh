#!/usr/bin/env bash
# Installs everything (Chromium, DeepBot in .venv) and runs the main job: a domain crawl
# of the bundled demo bookshop with the embedded SQLite store. Extra args go to `deepbot demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-chromium.sh
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e .
exec .venv/bin/deepbot demo "$@"
