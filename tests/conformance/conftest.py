"""Conformance suite: the official e2b Python SDK against dsh-envd.

One dsh-envd runs for the whole session, inside a private mount namespace laid
out like an E2B sandbox: a tmpfs on /home with /home/user (uid 1000), and
/etc/passwd and /etc/group replaced by copies in which uid/gid 1000 is `user`.
The SDK reaches it in debug mode (`E2B_DEBUG=true`, `E2B_SANDBOX_URL=...`), so
no control plane is involved.

Expected values come from shared/spec/envd-protocol.md and the SDK source.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[2]
HEALTH_TIMEOUT_S = 20.0

USER = "user"
USER_UID = 1000
USER_HOME = "/home/user"

# Exported into dsh-envd's own environment; envd must not pass it on to the
# processes it starts (spec 3.3: "Nothing else is inherited").
SENTINEL_ENV = "DSH_CONFORMANCE_SENTINEL"
# Sent through POST /init envVars, so it becomes part of the global env.
INIT_ENV = "DSH_CONFORMANCE_INIT_VAR"
INIT_ENV_VALUE = "from-init"

T = TypeVar("T")


@dataclass
class Envd:
    url: str
    port: int
    pid: int
    log_path: Path
    # The dsh-envd process (child of `unshare`); /proc/<envd_pid>/root/...
    # shows the sandbox's mount namespace from the host.
    envd_pid: int
    init_status: Optional[int]
    init_error: Optional[str]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _sandbox_account_files(tmp: Path) -> tuple[Path, Path]:
    """Copies of /etc/passwd and /etc/group with uid/gid 1000 as `user`."""

    def keep(line: str, id_field: int) -> bool:
        parts = line.split(":")
        if len(parts) <= id_field:
            return True
        return parts[0] != USER and parts[id_field] != str(USER_UID)

    passwd = [
        line
        for line in Path("/etc/passwd").read_text().splitlines()
        if keep(line, 2)
    ]
    passwd.append(f"{USER}:x:{USER_UID}:{USER_UID}::{USER_HOME}:/bin/bash")
    group = [
        line for line in Path("/etc/group").read_text().splitlines() if keep(line, 2)
    ]
    group.append(f"{USER}:x:{USER_UID}:")

    passwd_path, group_path = tmp / "passwd", tmp / "group"
    passwd_path.write_text("\n".join(passwd) + "\n")
    group_path.write_text("\n".join(group) + "\n")
    for p in (tmp, passwd_path, group_path):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return passwd_path, group_path


def _descendants(root_pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may contain spaces.
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    stack = [root_pid]
    while stack:
        for child in children.get(stack.pop(), []):
            out.append(child)
            stack.append(child)
    return out


def _kill_tree(proc: subprocess.Popen) -> None:
    """Kill envd, its process group and every process it started."""
    victims = _descendants(proc.pid)
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    # Processes that envd put in their own sessions (PTYs) or groups are not
    # in our group; they were collected before envd went away.
    for pid in victims + _descendants(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def _health(url: str) -> Optional[int]:
    try:
        with urllib.request.urlopen(url + "/health", timeout=1) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (urllib.error.URLError, OSError):
        return None


def _post_init(url: str, body: dict) -> tuple[Optional[int], Optional[str]]:
    req = urllib.request.Request(
        url + "/init",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, None
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except (urllib.error.URLError, OSError) as e:
        return None, str(e)


def _log_tail(path: Path, limit: int = 4000) -> str:
    try:
        return path.read_text(errors="replace")[-limit:]
    except OSError:
        return "<no log>"


def envd_binary() -> Path:
    binary = Path(os.environ.get("DSH_ENVD_BIN") or REPO / "target/debug/dsh-envd")
    if not binary.is_file():
        pytest.fail(
            f"dsh-envd binary not found at {binary}; build it with "
            "`cargo build -p dsh-envd --bin dsh-envd` or set DSH_ENVD_BIN"
        )
    return binary


def _wait_healthy(proc: subprocess.Popen, url: str, log_path: Path) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    status = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(
                f"dsh-envd exited with status {proc.returncode} before "
                f"answering /health; log {log_path}:\n{_log_tail(log_path)}"
            )
        status = _health(url)
        if status == 204:
            return
        time.sleep(0.05)
    pytest.fail(
        f"dsh-envd did not answer GET {url}/health with 204 within "
        f"{HEALTH_TIMEOUT_S:.0f}s (last status: {status}); log "
        f"{log_path}:\n{_log_tail(log_path)}"
    )


@contextlib.contextmanager
def plain_envd(*args: str):
    """A second dsh-envd, outside any namespace, with extra CLI `args`; yields its URL."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    (REPO / "target").mkdir(exist_ok=True)
    log_path = REPO / "target" / "conformance-envd-extra.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(envd_binary()), "--listen", f"127.0.0.1:{port}", *args],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "RUST_LOG": "info"},
            cwd="/",
            start_new_session=True,
        )
        try:
            _wait_healthy(proc, url, log_path)
            yield url
        finally:
            _kill_tree(proc)


@pytest.fixture(scope="session")
def envd() -> Iterator[Envd]:
    if os.geteuid() != 0:
        pytest.fail(
            "the conformance suite must run as root: it starts dsh-envd in a "
            "private mount namespace (unshare --mount)"
        )
    binary = envd_binary()
    for tool in ("unshare", "mount", "sh"):
        if shutil.which(tool) is None:
            pytest.fail(f"`{tool}` is required to start dsh-envd and was not found")

    tmp = Path(tempfile.mkdtemp(prefix="dsh-conformance-"))
    passwd, group = _sandbox_account_files(tmp)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log_dir = REPO / "target"
    log_dir.mkdir(exist_ok=True)
    log_path = log_dir / "conformance-envd.log"

    setup = (
        "set -e; umask 022; "
        "mount -t tmpfs -o mode=755 tmpfs /home; "
        f"mkdir -p {USER_HOME}; chown {USER_UID}:{USER_UID} {USER_HOME}; "
        f"chmod 755 {USER_HOME}; "
        'mount --bind "$1" /etc/passwd; mount --bind "$2" /etc/group; '
        'exec "$3" --listen "127.0.0.1:$4"'
    )
    env = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        SENTINEL_ENV: "leaked",
        "RUST_LOG": os.environ.get("RUST_LOG", "info"),
        "RUST_BACKTRACE": "1",
    }
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [
            "unshare", "--mount", "--propagation", "private", "--fork", "--",
            "sh", "-c", setup, "sh", str(passwd), str(group), str(binary), str(port),
        ],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd="/",
        start_new_session=True,
    )
    try:
        _wait_healthy(proc, url, log_path)
        kids = _descendants(proc.pid)
        envd_pid = kids[0] if kids else proc.pid

        # What E2B's orchestrator does for a `base` sandbox: the default user is
        # `user`, and sandbox env vars arrive as envVars. Its reply is checked
        # by test_commands.py::test_init_sets_default_user_and_global_env; SDK
        # tests name the user wherever ownership or home matters.
        init_status, init_error = _post_init(
            url, {"defaultUser": USER, "envVars": {INIT_ENV: INIT_ENV_VALUE}}
        )

        os.environ["E2B_DEBUG"] = "true"
        os.environ["E2B_SANDBOX_URL"] = url
        yield Envd(url, port, proc.pid, log_path, envd_pid, init_status, init_error)
    finally:
        _kill_tree(proc)
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def sbx(envd: Envd):
    from e2b import Sandbox

    sandbox = Sandbox.create()
    assert sandbox.sandbox_id == "debug_sandbox_id"
    yield sandbox


@pytest.fixture
def udir(sbx, request) -> str:
    """A fresh directory owned by `user` under /home/user, named after the test."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)[:80]
    path = f"{USER_HOME}/{name}"
    sbx.files.remove(path)
    assert sbx.files.make_dir(path, user=USER) is True
    return path


def host_path(envd: Envd, path: str) -> str:
    """The host's view of a path inside the sandbox's mount namespace."""
    return f"/proc/{envd.envd_pid}/root{path}"


def quiet_kill(sbx, pid: int) -> None:
    """Best-effort cleanup kill that never masks the test's own outcome."""
    try:
        sbx.commands.kill(pid)
    except Exception:  # noqa: BLE001
        pass


def wait_until(
    probe: Callable[[], T], timeout: float = 5.0, interval: float = 0.05
) -> T:
    """Call `probe` until it returns something truthy; return its last value."""
    deadline = time.monotonic() + timeout
    value = probe()
    while not value and time.monotonic() < deadline:
        time.sleep(interval)
        value = probe()
    return value


class PtyReader:
    """Collects the output of a sync PTY handle on a background thread."""

    def __init__(self, handle):
        self.handle = handle
        self.buf = bytearray()
        self.error: Optional[BaseException] = None
        self.result = None
        self.done = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _feed(self, data: bytes) -> None:
        with self._cond:
            self.buf += data
            self._cond.notify_all()

    def _run(self) -> None:
        try:
            self.result = self.handle.wait(on_pty=self._feed)
        except BaseException as e:  # noqa: BLE001 - reported to the test
            self.error = e
        finally:
            with self._cond:
                self.done = True
                self._cond.notify_all()

    def wait_for(self, pattern: bytes, timeout: float = 10.0, start: int = 0) -> re.Match:
        """Wait until the regex `pattern` matches the output from offset `start`."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                m = rx.search(bytes(self.buf), start)
                if m:
                    return m
                left = deadline - time.monotonic()
                if left <= 0 or self.done:
                    raise AssertionError(
                        f"PTY output never matched {pattern!r} (done={self.done}, "
                        f"error={self.error!r}); got {bytes(self.buf[start:])!r}"
                    )
                self._cond.wait(left)

    def join(self, timeout: float = 10.0) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "PTY stream did not end"

    def __len__(self) -> int:
        with self._cond:
            return len(self.buf)
