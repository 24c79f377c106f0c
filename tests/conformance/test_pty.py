"""sbx.pty against dsh-envd: Start with a PTY, SendInput(pty), Update (resize), Connect."""

from __future__ import annotations

import asyncio
import re

import pytest
from e2b import AsyncSandbox, CommandExitException, ProcessInfo, PtySize, SandboxException

from conftest import USER, USER_HOME, PtyReader, quiet_kill, wait_until


def line(text: bytes) -> bytes:
    """A line of command output: preceded by the end of the echoed input line
    ("\r\n", or "\r" after bash turns bracketed paste off) and ended by "\r\n"
    (the tty's onlcr)."""
    return rb"[\r\n]" + re.escape(text) + rb"\r\n"


def open_pty(sbx, rows=24, cols=80, **kw):
    handle = sbx.pty.create(PtySize(rows=rows, cols=cols), timeout=30, **kw)
    return handle, PtyReader(handle)


def send(sbx, handle, reader, data: str, expect: bytes, timeout: float = 10.0):
    start = len(reader)
    sbx.pty.send_stdin(handle.pid, data.encode())
    return reader.wait_for(expect, timeout=timeout, start=start)


@pytest.fixture
def pty(sbx):
    opened = []

    def make(**kw):
        handle, reader = open_pty(sbx, **kw)
        opened.append(handle)
        return handle, reader

    yield make
    for handle in opened:
        quiet_kill(sbx, handle.pid)


def test_pty_size_from_create(sbx, pty):
    h, r = pty(rows=24, cols=80)
    assert h.pid > 0
    send(sbx, h, r, "stty size\n", line(b"24 80"))


def test_pty_other_initial_size(sbx, pty):
    h, r = pty(rows=40, cols=132)
    send(sbx, h, r, "stty size\n", line(b"40 132"))


def test_pty_resize(sbx, pty):
    h, r = pty(rows=24, cols=80)
    send(sbx, h, r, "stty size\n", line(b"24 80"))
    sbx.pty.resize(h.pid, PtySize(rows=30, cols=100))
    send(sbx, h, r, "stty size\n", line(b"30 100"))


def test_pty_multibyte_output_is_byte_exact(sbx, pty):
    h, r = pty()
    # The echoed input keeps the quotes; the command's output does not.
    m = send(sbx, h, r, "echo 你''好 🎉\n", line("你好 🎉".encode()))
    assert "echo 你''好 🎉".encode() in bytes(r.buf[: m.start() + 1])


def test_pty_env_user_cwd(sbx, pty):
    probe = 'echo "$(id -u)|$PWD|$PTY_VAR|$TERM|$LANG|$LC_ALL"\n'
    h, r = pty(user="root", cwd="/tmp", envs={"PTY_VAR": "v"})
    send(sbx, h, r, probe, line(b"0|/tmp|v|xterm-256color|C.UTF-8|C.UTF-8"))
    h2, r2 = pty(user=USER)
    send(sbx, h2, r2, probe, line(f"1000|{USER_HOME}||xterm-256color|C.UTF-8|C.UTF-8".encode()))


def test_pty_ctrl_c_interrupts(sbx, pty):
    h, r = pty()
    send(sbx, h, r, "echo ready\n", line(b"ready"))
    sbx.pty.send_stdin(h.pid, b"sleep 20\n")
    # ^C only reaches sleep once it is the terminal's foreground process.
    assert wait_until(
        lambda: sbx.commands.run(f"ps -o stat=,comm= --ppid {h.pid} || true").stdout.split()
        == ["S+", "sleep"],
        timeout=5,
    ), "sleep never became the foreground job"
    sbx.pty.send_stdin(h.pid, b"\x03")
    send(sbx, h, r, "echo rc=$?\n", line(b"rc=130"))


def test_pty_stream_input(sbx, pty):
    h, r = pty()
    start = len(r)
    sbx.pty.stream_input(h.pid, ["echo s", b"i-$((1+1))\n"])
    r.wait_for(line(b"si-2"), start=start)


def test_pty_rejects_stdin_style_calls(sbx, pty):
    h, r = pty()
    send(sbx, h, r, "echo up\n", line(b"up"))
    # A PTY takes input as `pty` bytes, and has no stdin pipe to close
    # (send 0x04 instead).
    with pytest.raises(SandboxException):
        sbx.commands.send_stdin(h.pid, "x")
    with pytest.raises(SandboxException):
        sbx.commands.close_stdin(h.pid)
    send(sbx, h, r, "echo still-$((2+3))\n", line(b"still-5"))


def test_pty_exit_code(sbx, pty):
    h, r = pty()
    send(sbx, h, r, "echo up\n", line(b"up"))
    sbx.pty.send_stdin(h.pid, b"exit 7\n")
    r.join()
    assert isinstance(r.error, CommandExitException), r.error
    assert (r.error.exit_code, r.error.error) == (7, "exit status 7")


def test_pty_kill(sbx, pty):
    h, r = pty()
    send(sbx, h, r, "echo up\n", line(b"up"))
    assert sbx.pty.kill(h.pid) is True
    r.join()
    assert isinstance(r.error, CommandExitException), r.error
    assert (r.error.exit_code, r.error.error) == (-1, "signal: killed")
    assert h.pid not in {p.pid for p in sbx.commands.list()}
    assert sbx.pty.kill(4_000_000_000) is False


def test_pty_listed_with_its_config(sbx, pty):
    h, r = pty(cwd="/tmp")
    listed = [p for p in sbx.commands.list() if p.pid == h.pid]
    assert listed == [
        ProcessInfo(
            pid=h.pid,
            tag=None,
            cmd="/bin/bash",
            args=["-i", "-l"],
            envs={"TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"},
            cwd="/tmp",
        )
    ]


def test_pty_connect(sbx, pty):
    h, r = pty()
    send(sbx, h, r, "echo first\n", line(b"first"))
    h2 = sbx.pty.connect(h.pid, timeout=30)
    assert h2.pid == h.pid
    r2 = PtyReader(h2)
    start2 = len(r2)
    send(sbx, h, r, "echo conn-$((40+2))\n", line(b"conn-42"))
    r2.wait_for(line(b"conn-42"), start=start2)
    # The connected stream sees only what came after it attached.
    assert b"first" not in bytes(r2.buf)
    assert sbx.pty.kill(h.pid) is True
    r.join()
    r2.join()
    assert r.error.exit_code == r2.error.exit_code == -1


def test_pty_async_on_data_and_resize(envd):
    async def main():
        sandbox = await AsyncSandbox.create()
        buf = bytearray()

        async def wait_for(pattern: bytes, start: int):
            for _ in range(200):
                if re.search(pattern, bytes(buf[start:])):
                    return
                await asyncio.sleep(0.05)
            raise AssertionError(f"never saw {pattern!r} in {bytes(buf[start:])!r}")

        h = await sandbox.pty.create(PtySize(rows=24, cols=80), on_data=buf.extend, timeout=30)
        try:
            start = len(buf)
            await sandbox.pty.send_stdin(h.pid, b"stty size\n")
            await wait_for(line(b"24 80"), start)
            await sandbox.pty.resize(h.pid, PtySize(rows=50, cols=120))
            start = len(buf)
            await sandbox.pty.send_stdin(h.pid, "echo 你''好; stty size\n".encode())
            await wait_for(line("你好".encode()) + rb"50 120\r\n", start)
        finally:
            assert await sandbox.pty.kill(h.pid) is True
        with pytest.raises(CommandExitException) as exc:
            await h.wait()
        assert exc.value.exit_code == -1

    asyncio.run(main())
