"""The official `e2b-code-interpreter` SDK against `dsh sandbox serve`.

One daemon runs for the session, pointed at by environment variables only (as a user
would): E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY. Its state directory is kept between
runs (DSH_CI_STATE_DIR, default /var/tmp/dsh-code-interpreter-suite) so that the
`code-interpreter-v1` template, built by the daemon on its first use, is built once per
machine: the first run of a machine waits for that build (pip installs from PyPI).

Needs root (sandboxes use namespaces) and the `dsh` binary (DSH_BIN, default
target/debug/dsh).
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60.0
# The first build of the template on a machine: pip installs some 200 MB from PyPI.
BUILD_TIMEOUT_S = 1800.0


@dataclass
class Daemon:
    url: str
    api_key: str
    state_dir: Path
    log_path: Path
    # How long the first create took (the template's build, when it was not cached).
    first_create_s: float


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _log_tail(path: Path, lines: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "<no log>"


@pytest.fixture(scope="session")
def daemon() -> Iterator[Daemon]:
    if os.geteuid() != 0:
        pytest.fail("the code-interpreter suite must run as root (sandboxes need namespaces and mounts)")
    dsh = Path(os.environ.get("DSH_BIN") or REPO / "target" / "debug" / "dsh")
    if not dsh.is_file():
        pytest.fail(f"dsh not found at {dsh}; run `cargo build -p dsh --bins` or set DSH_BIN")
    state = Path(os.environ.get("DSH_CI_STATE_DIR") or "/var/tmp/dsh-code-interpreter-suite")
    state.mkdir(parents=True, exist_ok=True)
    # One daemon per state directory: a second run on this machine waits for the first.
    lock = open(state.parent / f"{state.name}.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = state.parent / f"{state.name}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(dsh), "sandbox", "serve", "--listen", f"127.0.0.1:{port}", "--state-dir", str(state)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "RUST_LOG": "info"},
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"dsh sandbox serve exited with {proc.returncode}:\n{_log_tail(log_path)}")
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=1) as r:
                    if r.status == 200 and (state / "api-key").exists():
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"dsh sandbox serve did not start:\n{_log_tail(log_path)}")
            time.sleep(0.05)
        api_key = (state / "api-key").read_text().strip()
        for name in ("E2B_DEBUG", "E2B_DOMAIN", "E2B_ACCESS_TOKEN"):
            os.environ.pop(name, None)
        os.environ["E2B_API_URL"] = url
        os.environ["E2B_SANDBOX_URL"] = url
        os.environ["E2B_API_KEY"] = api_key

        # The first create builds the template when this machine has not yet: wait for it
        # here, once, with a limit fit for a build.
        from e2b_code_interpreter import Sandbox

        started = time.monotonic()
        try:
            first = Sandbox.create(request_timeout=BUILD_TIMEOUT_S)
        except Exception as e:  # the daemon's log says why
            pytest.fail(f"the first create failed: {e}\n{_log_tail(log_path)}")
        first_create_s = time.monotonic() - started
        first.kill()
        yield Daemon(url=url, api_key=api_key, state_dir=state, log_path=log_path, first_create_s=first_create_s)
    finally:
        # SIGTERM: the daemon pauses what is left and exits.
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        lock.close()


@pytest.fixture
def sandbox(daemon: Daemon):
    from e2b_code_interpreter import Sandbox

    sbx = Sandbox.create()
    try:
        yield sbx
    finally:
        sbx.kill()
