#!/usr/bin/env bash
# Installs Debian's chromium (headed runs, and the fallback) and chromium-headless-shell
# (what headless crawls launch: the same engine without the browser's own interface,
# much lighter) when they are missing. Idempotent.
#
# A fresh cloud machine often runs apt itself at first boot (cloud-init,
# unattended-upgrades): rather than fail at once on its lock, this waits for it, at most
# DEEPBOT_APT_LOCK_WAIT seconds (default 300) in all.
set -euo pipefail

LOCK_WAIT_S="${DEEPBOT_APT_LOCK_WAIT:-300}"
LOCKS=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)
DEADLINE=$((SECONDS + LOCK_WAIT_S))
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# The processes that hold any of the locks, if fuser (psmisc) can tell; nothing otherwise,
# and then apt's own DPkg::Lock::Timeout and the retry in apt_get do the waiting.
lock_holders() {
    command -v fuser >/dev/null || return 0
    fuser "${LOCKS[@]}" 2>/dev/null | tr -s ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ' || true
}

wait_for_apt() {
    local holders said=""
    while holders=$(lock_holders) && [ -n "$holders" ]; do
        if [ "$SECONDS" -ge "$DEADLINE" ]; then
            echo "still held after ${LOCK_WAIT_S} s (process ${holders% }): trying anyway" >&2
            return 0
        fi
        if [ -z "$said" ]; then
            echo "another package manager (process ${holders% }) holds the apt/dpkg lock:" \
                "waiting for it, at most $((DEADLINE - SECONDS)) s more (DEEPBOT_APT_LOCK_WAIT)" >&2
            said=1
        fi
        sleep 2
    done
    if [ -n "$said" ]; then echo "the apt/dpkg lock is free" >&2; fi
}

# apt-get with the wait: before it starts, and inside it for the dpkg lock (apt >= 1.9.11);
# `apt-get update`'s lists lock is not covered by DPkg::Lock::Timeout, so a run that
# failed on a lock is tried again until the deadline.
apt_get() {
    local err
    while true; do
        wait_for_apt
        local left=$((DEADLINE - SECONDS))
        if [ "$left" -lt 0 ]; then left=0; fi
        # stderr kept to see whether the failure was a lock; stdout goes where it went.
        if { err=$($SUDO apt-get -o DPkg::Lock::Timeout="$left" "$@" 2>&1 >&3); } 3>&1; then
            return 0
        fi
        if [ "$SECONDS" -lt "$DEADLINE" ] && grep -qiE "could not get lock|unable to (lock|acquire)" <<<"$err"; then
            echo "apt-get met a lock another process took meanwhile: waiting and trying again" >&2
            sleep 2
            continue
        fi
        printf '%s\n' "$err" >&2
        return 1
    done
}

main() {
    if [ -n "${DEEPBOT_CHROMIUM:-}" ] && [ -x "${DEEPBOT_CHROMIUM}" ]; then exit 0; fi
    if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromium-headless-shell ]; then exit 0; fi
    export DEBIAN_FRONTEND=noninteractive
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
    # Older releases lack the shell: DeepBot then runs headless in full Chromium, only slower.
    apt_get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null \
        || echo "chromium-headless-shell is not available here: headless crawls use chromium" >&2
    /usr/bin/chromium --version
}

# Sourced (tests/test_install_script.py), it only defines the functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
