"""Secrets stay secret: a value that came from ${NAME} is masked in what DeepBot prints."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from deepbot.crawl.sessions import masked, secret_values
from fixtures.server import FixtureServer

SECRET = 'hunter2-S3cret!"q'


def test_secret_values_are_those_the_program_uses_and_masking_covers_nseql_quoting() -> None:
    env = {"PW": SECRET, "USER": "ann", "UNUSED": "zzz", "EMPTY": ""}
    secrets = secret_values('fill "#u" "${USER}"\nfill "#p" "${PW}${EMPTY}"', env)
    assert secrets == (SECRET, "ann")
    said = masked("line 2: fill '#p' 'hunter2-S3cret!\"q': not found; user ann", secrets)
    assert SECRET not in said and "ann" not in said and said.count("***") == 2


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_a_failing_login_step_does_not_print_the_password(tmp_path: Path) -> None:
    program = tmp_path / "login.nseql"
    with FixtureServer() as site:
        program.write_text(f'navigate {site.url("/patron/Login.aspx")}\nfill "#nope" "${{PW}}"\n')
        done = subprocess.run([sys.executable, "-m", "deepbot", "login", str(program), "--save",
                               str(tmp_path / "s.json"), "--timeout", "2"], capture_output=True, text=True,
                              timeout=100, env={**os.environ, "PW": SECRET}, check=False)
    assert done.returncode == 1
    assert "line 2" in done.stderr and "***" in done.stderr  # the step is named, its value masked
    assert "hunter2" not in done.stderr + done.stdout


def test_a_session_file_is_written_0600_atomically_and_never_through_a_symlink(tmp_path: Path) -> None:
    from deepbot.crawl.sessions import save_session
    from deepbot.routes import SessionState

    state = SessionState(cookies=({"name": "sid", "value": "v", "domain": "a.example", "path": "/"},))
    old = tmp_path / "session.json"
    old.write_text("{}")
    old.chmod(0o644)
    save_session(state, old)
    assert old.stat().st_mode & 0o777 == 0o600  # an earlier 0644 file does not keep its mode
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "link.json"
    link.symlink_to(victim)
    save_session(state, link)
    assert victim.read_text() == "keep me"  # the symlink was replaced, not followed
    assert not link.is_symlink() and "sid" in link.read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left
