#!/usr/bin/env bash
# Installs everything the tests need (Chromium, the package with its test extras in
# .venv) and runs lint, types and the test suite. Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-chromium.sh
# A throwaway PostgreSQL on loopback for the postgresql:// store's tests, stopped at exit.
source scripts/postgres.sh && postgres_start && trap postgres_stop EXIT
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'
.venv/bin/ruff check deepbot nseql fixtures tests bench
.venv/bin/mypy
# The docs site, built strictly: a broken link or anchor fails (about 3 s). Material's notice of
# its own end of life (May 2027) is silenced: it would print the same box on every run.
site=$(mktemp -d) && NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir "$site" && rm -rf "$site"
.venv/bin/python -m pytest -n 2 --dist loadgroup "$@"
