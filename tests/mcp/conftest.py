"""The `dsh mcp` server under test, and host-side process inspection.

The server runs the embedded local sandbox daemon (no E2B_* variables reach it). The
suite runs as root (it looks at every process of the host); the server runs as root too,
or, with $DSH_MCP_USER, as that ordinary user (rootless: $DSH_BIN is then a wrapper that
execs dsh as the user, and each test's directory is given to the user). The binary is
`target/debug/dsh` (build it with `cargo build -p dsh`), or $DSH_BIN.

With $DSH_MCP_EDGE_ENV (the JSON environment the stand-in of E2B's edge prints: see
crates/edge-standin/examples/serve.rs, run by scripts/test's mcp_edge step) the server is
configured as for E2B cloud and reaches its sandboxes through the edge; they then run
under the stand-in's process ($DSH_MCP_EDGE_PID), not under the server.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def dsh_bin() -> str:
    path = os.environ.get("DSH_BIN") or str(
        Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug" / "dsh"
    )
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is missing: build it with `cargo build -p dsh` (or set DSH_BIN)")
    return path


EDGE_ENV = os.environ.get("DSH_MCP_EDGE_ENV")
THROUGH_EDGE = bool(EDGE_ENV)


def server_env(state_dir: Path) -> dict[str, str]:
    """The host environment minus E2B_* (so the embedded local sandbox is used), or, through
    the stand-in edge, with exactly the E2B cloud configuration it printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("E2B_")}
    env.pop("DSH_MCP_EDGE_ENV", None)
    if EDGE_ENV:
        import json

        env.update(json.loads(EDGE_ENV))
    env.pop("DSH_SANDBOXD_STATE", None)
    env["DSH_EMBEDDED_STATE"] = str(state_dir)
    # A store of the test's own: each test sees a first use, whatever ran before it.
    env["DSH_LAYER_STORE"] = str(state_dir / "layers")
    env.setdefault("RUST_LOG", "dsh=debug,warn")
    return env


@pytest.fixture(autouse=True)
def _needs_root():
    if os.geteuid() != 0:
        pytest.fail("the MCP suite looks at every process of the host: run it as root (scripts/test)")


@pytest.fixture(autouse=True)
def _server_user(tmp_path):
    """With $DSH_MCP_USER, the test's directory (where servers keep their state) is the
    user's, and every directory above it may be passed through."""
    user = os.environ.get("DSH_MCP_USER")
    if not user:
        return
    import pwd

    entry = pwd.getpwnam(user)
    os.chown(tmp_path, entry.pw_uid, entry.pw_gid)
    for parent in tmp_path.parents:
        if parent == Path("/"):
            break
        os.chmod(parent, os.stat(parent).st_mode | 0o011)


# --- host processes ----------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    argv: tuple[str, ...]


def processes() -> dict[int, Proc]:
    procs: dict[int, Proc] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/cmdline").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The command name may contain spaces and parentheses: split after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        argv = tuple(a.decode(errors="replace") for a in raw.split(b"\0") if a)
        procs[int(entry)] = Proc(int(entry), int(fields[1]), argv)
    return procs


def descendants(root: int, procs: dict[int, Proc] | None = None) -> list[Proc]:
    procs = processes() if procs is None else procs
    children: dict[int, list[Proc]] = {}
    for p in procs.values():
        children.setdefault(p.ppid, []).append(p)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child.pid)
    return found


def is_sandbox_process(p: Proc) -> bool:
    """A sandbox's init or envd: the embedded roles of `dsh`, or dsh-sandboxd's binaries."""
    return is_sandbox_init(p) or p.argv[1:2] == ("__envd",) or (
        bool(p.argv) and os.path.basename(p.argv[0]) == "dsh-envd"
    )


def is_sandbox_init(p: Proc) -> bool:
    """A sandbox's init: the native runtime's, or under gVisor (DSH_SANDBOXD_RUNTIME=gvisor)
    runsc's own in the foreground (`runsc ... run`/`restore`), the server's child."""
    if p.argv[1:2] == ("__sandbox-init",) or (
        bool(p.argv) and os.path.basename(p.argv[0]) == "dsh-sandbox-init"
    ):
        return True
    return (
        bool(p.argv)
        and os.path.basename(p.argv[0]) == "runsc"
        and ("run" in p.argv or "restore" in p.argv)
    )


def is_sleep(p: Proc, arg: str) -> bool:
    return len(p.argv) == 2 and os.path.basename(p.argv[0]) == "sleep" and p.argv[1] == arg


def alive(p: Proc) -> bool:
    """Whether this very process (same pid, same command line) still exists."""
    current = processes().get(p.pid)
    return current is not None and current.argv == p.argv


def sandbox_host(server_pid: int) -> int:
    """The process the server's sandboxes run under: the server (its embedded daemon), or
    through the edge the stand-in's (one test's sandboxes at a time)."""
    return int(os.environ["DSH_MCP_EDGE_PID"]) if THROUGH_EDGE else server_pid


def sandbox_processes_of(server_pid: int) -> list[Proc]:
    return [p for p in descendants(sandbox_host(server_pid)) if is_sandbox_process(p)]


def wait_until(predicate, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class HttpServer:
    proc: subprocess.Popen
    url: str
    log: Path

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def http_server(tmp_path):
    """`dsh mcp --http 127.0.0.1:<port>`; stopped with SIGTERM at the end, which must
    leave no sandbox process behind."""
    port = free_port()
    log = tmp_path / "server.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            [dsh_bin(), "mcp", "--http", f"127.0.0.1:{port}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=server_env(tmp_path / "state"),
            cwd=tmp_path,
        )
    server = HttpServer(proc, f"http://127.0.0.1:{port}/mcp", log)

    def listening():
        if proc.poll() is not None:
            raise AssertionError(f"dsh mcp exited with {proc.returncode}:\n{server.stderr()}")
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    wait_until(listening, 30, "dsh mcp to listen")
    seen: list[Proc] = []
    server.seen_sandbox = seen  # type: ignore[attr-defined]
    try:
        yield server
    finally:
        seen.extend(sandbox_processes_of(proc.pid))
        assert any(is_sandbox_init(p) for p in seen), (
            f"no sandbox ran under the server:\n{server.stderr()}"
        )
        if proc.poll() is None:
            proc.terminate()
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"dsh mcp did not exit on SIGTERM:\n{server.stderr()}")
        assert code == 0, f"dsh mcp exited with {code}:\n{server.stderr()}"
        left = [p for p in seen if alive(p)]
        assert not left, f"sandbox processes remain after the server exited: {left}"
