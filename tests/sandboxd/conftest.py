"""The official e2b Python SDK against dsh-sandboxd (control plane + envd routing).

One dsh-sandboxd runs for the whole session on a free port over a temporary
state directory. The SDK is pointed at it by environment variables only, the way
a user would do it:

    E2B_API_URL=http://127.0.0.1:<port>
    E2B_SANDBOX_URL=http://127.0.0.1:<port>
    E2B_API_KEY=$(cat <state-dir>/api-key)

(no E2B_DEBUG: the SDK runs in its normal, non-debug mode, calls the REST API
and sends E2b-Sandbox-Id + X-Access-Token on every envd request).

Needs root (sandboxes use namespaces and overlay mounts) and the binaries
target/debug/{dsh-sandboxd,dsh-sandbox-init,dsh-envd} (or DSH_SANDBOXD_BIN /
DSH_ENVD_BIN).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 20.0


@dataclass
class Daemon:
    url: str
    api_key: str
    state_dir: Path
    proc: subprocess.Popen
    log_path: Path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _binary(env: str, name: str) -> Path:
    path = Path(os.environ.get(env) or REPO / "target" / "debug" / name)
    if not path.is_file():
        pytest.fail(f"{name} not found at {path}; run `cargo build -p dsh-sandboxd -p dsh-envd` or set {env}")
    return path


def _log_tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "<no log>"


@pytest.fixture(scope="session")
def daemon() -> Iterator[Daemon]:
    if os.geteuid() != 0:
        pytest.fail("the sandboxd suite must run as root (sandboxes need namespaces and mounts)")
    sandboxd = _binary("DSH_SANDBOXD_BIN", "dsh-sandboxd")
    envd = _binary("DSH_ENVD_BIN", "dsh-envd")
    tmp = Path(tempfile.mkdtemp(prefix="dsh-sandboxd-suite-"))
    state = tmp / "state"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    (REPO / "target").mkdir(exist_ok=True)
    log_path = REPO / "target" / "sandboxd-suite.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(sandboxd), "serve", "--listen", f"127.0.0.1:{port}", "--state-dir", str(state),
             "--envd", str(envd)],
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
                pytest.fail(f"dsh-sandboxd exited with {proc.returncode}:\n{_log_tail(log_path)}")
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=1) as r:
                    if r.status == 200 and (state / "api-key").exists():
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"dsh-sandboxd did not start:\n{_log_tail(log_path)}")
            time.sleep(0.05)
        api_key = (state / "api-key").read_text().strip()
        saved = {k: os.environ.get(k) for k in ("E2B_API_URL", "E2B_SANDBOX_URL", "E2B_API_KEY", "E2B_DEBUG", "E2B_DOMAIN")}
        os.environ.pop("E2B_DEBUG", None)
        os.environ.pop("E2B_DOMAIN", None)
        os.environ["E2B_API_URL"] = url
        os.environ["E2B_SANDBOX_URL"] = url
        os.environ["E2B_API_KEY"] = api_key
        try:
            yield Daemon(url=url, api_key=api_key, state_dir=state.resolve(), proc=proc, log_path=log_path)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    finally:
        # SIGTERM: the daemon pauses every sandbox (stops all their processes) and exits.
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def sandbox(daemon: Daemon):
    from e2b import Sandbox

    sbx = Sandbox.create()
    try:
        yield sbx
    finally:
        sbx.kill()
