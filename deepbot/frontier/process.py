"""Who holds a lease, and whether that process still lives.

A lease records the identity of the process that took it:
``host:pid:start`` where ``start`` is the process start time from ``/proc`` (empty
where there is no ``/proc``). A restarted crawl on the same machine can then hand
back at once the leases of its dead predecessor instead of waiting for their TTL;
the start time guards against a recycled pid. Leases of other machines, or of
identities this module cannot read, are left to expire by TTL.
"""

from __future__ import annotations

import functools
import os
import socket
from pathlib import Path


def _start_time(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat (clock ticks since boot); None if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is parenthesised and may hold spaces or ')'.
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


@functools.cache
def _hostname() -> str:
    return socket.gethostname()


def current_identity() -> str:
    """This process's identity (not cached: a forked child is another process)."""
    pid = os.getpid()
    return f"{_hostname()}:{pid}:{_start_time(pid) or ''}"


def is_dead(identity: str) -> bool:
    """True only when ``identity`` is a process of this machine that no longer runs."""
    try:
        host, pid_text, start = identity.rsplit(":", 2)
        pid = int(pid_text)
    except ValueError:
        return False
    if host != _hostname() or pid <= 0:
        return False
    if start and Path("/proc").is_dir():
        return _start_time(pid) != start
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # exists, owned by someone else
    return False
