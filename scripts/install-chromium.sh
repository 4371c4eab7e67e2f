#!/usr/bin/env bash
# Installs Debian's chromium (headed runs, and the fallback) and chromium-headless-shell
# (what headless crawls launch: the same engine without the browser's own interface,
# much lighter) when they are missing. Idempotent.
set -euo pipefail
if [ -n "${DEEPBOT_CHROMIUM:-}" ] && [ -x "${DEEPBOT_CHROMIUM}" ]; then exit 0; fi
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromium-headless-shell ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
# Older releases lack the shell: DeepBot then runs headless in full Chromium, only slower.
$SUDO apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null \
    || echo "chromium-headless-shell is not available here: headless crawls use chromium" >&2
/usr/bin/chromium --version
