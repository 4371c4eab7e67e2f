#!/usr/bin/env bash
# Installs everything the tests need (Chromium, the package with its test extras in
# .venv) and runs lint, types and the test suite. Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-chromium.sh
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'
.venv/bin/ruff check deepbot nseql fixtures tests bench
.venv/bin/mypy
.venv/bin/python -m pytest -n 2 --dist loadgroup "$@"
