#!/usr/bin/env bash
# Installs Debian's chromium when no usable Chromium is present. Idempotent.
set -euo pipefail
if [ -n "${DEEPBOT_CHROMIUM:-}" ] && [ -x "${DEEPBOT_CHROMIUM}" ]; then exit 0; fi
if [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
/usr/bin/chromium --version
