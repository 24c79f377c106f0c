"""sbx.commands against dsh-envd: process.Process Start/Connect/List/SendInput/..."""

from __future__ import annotations

import asyncio
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from e2b import (
    AsyncSandbox,
    AuthenticationException,
    CommandExitException,
    InvalidArgumentException,
    NotFoundException,
    ProcessInfo,
    PtySize,
    SandboxException,
    TimeoutException,
)

from conftest import (
    INIT_ENV,
    INIT_ENV_VALUE,
    SENTINEL_ENV,
    USER,
    USER_HOME,
    quiet_kill,
    wait_until,
)

MULTIBYTE = "héllo 你好 🎉\n"


def listed_pids(sbx):
    return {p.pid for p in sbx.commands.list()}


def host_processes_with_cmdline(cmdline: bytes):
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (proc / "cmdline").read_bytes() == cmdline:
                found.append(int(proc.name))
        except OSError:
            pass
    return found


# --- run: exit codes and output ----------------------------------------------


def test_run_exit_zero(sbx):
    r = sbx.commands.run("echo hello; echo world >&2")
    assert (r.stdout, r.stderr, r.exit_code, r.error) == ("hello\n", "world\n", 0, None)


def test_run_nonzero_exit_raises_command_exit_exception(sbx):
    with pytest.raises(CommandExitException) as exc:
        sbx.commands.run("echo out; echo err >&2; exit 3")
    e = exc.value
    assert (e.exit_code, e.stdout, e.stderr, e.error) == (3, "out\n", "err\n", "exit status 3")


def test_run_missing_program_exits_127(sbx):
    with pytest.raises(CommandExitException) as exc:
        sbx.commands.run("definitely-not-a-command-xyz")
    assert exc.value.exit_code == 127
    assert exc.value.stdout == ""
    assert exc.value.stderr.endswith("definitely-not-a-command-xyz: command not found\n")


def test_run_killed_by_signal_reports_minus_one(sbx):
    with pytest.raises(CommandExitException) as exc:
        sbx.commands.run("echo before; kill -TERM $$")
    assert (exc.value.exit_code, exc.value.error, exc.value.stdout) == (
        -1,
        "signal: terminated",
        "before\n",
    )


def test_run_multibyte_and_large_output(sbx):
    r = sbx.commands.run(
        "printf 'héllo 你好 🎉\\n'; head -c 300000 /dev/zero | tr '\\0' a; "
        "printf 'é%.0s' $(seq 1 5000) >&2"
    )
    assert r.stdout == MULTIBYTE + "a" * 300000
    assert r.stderr == "é" * 5000


def test_end_waits_for_the_output_pipes_to_close(sbx):
    # bash exits at once, but the background subshell still holds stdout.
    r = sbx.commands.run("(sleep 0.5; echo late) & echo early")
    assert r.stdout == "early\nlate\n"


def test_run_streams_to_callbacks(sbx):
    out, err = [], []
    r = sbx.commands.run(
        "echo one; sleep 0.1; echo two >&2; echo three",
        on_stdout=out.append,
        on_stderr=err.append,
    )
    assert "".join(out) == r.stdout == "one\nthree\n"
    assert "".join(err) == r.stderr == "two\n"


def test_run_concurrently(sbx):
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda i: sbx.commands.run(f"echo {i}").stdout, range(12)))
    assert results == [f"{i}\n" for i in range(12)]


# --- environment, cwd, user ----------------------------------------------------


def test_envs(sbx):
    r = sbx.commands.run(
        'echo "$FOO|$BAR|$EMPTY|${UNSET-unset}"',
        envs={"FOO": "foo value", "BAR": "ünï 你", "EMPTY": ""},
    )
    assert r.stdout == "foo value|ünï 你||unset\n"


def test_default_env_of_user_and_root(sbx):
    cmd = 'echo "$HOME|$USER|$LOGNAME"'
    assert sbx.commands.run(cmd, user=USER).stdout == f"{USER_HOME}|user|user\n"
    assert sbx.commands.run(cmd, user="root").stdout == "/root|root|root\n"


def test_env_marks_sandbox(sbx):
    assert sbx.commands.run('echo "${E2B_SANDBOX-unset}"').stdout == "true\n"


def test_env_does_not_inherit_envd_env(sbx):
    r = sbx.commands.run(f'echo "${{{SENTINEL_ENV}-unset}}"')
    assert r.stdout == "unset\n"


def test_request_envs_override_global_env(sbx):
    r = sbx.commands.run('echo "$HOME"', envs={"HOME": "/elsewhere"}, user=USER)
    assert r.stdout == "/elsewhere\n"


def test_cwd(sbx, udir):
    assert sbx.commands.run("pwd", cwd="/tmp").stdout == "/tmp\n"
    assert sbx.commands.run("pwd", user=USER).stdout == f"{USER_HOME}\n"
    assert sbx.commands.run("pwd", user="root").stdout == "/root\n"
    # A relative cwd is resolved against the user's home.
    rel = udir[len(USER_HOME) + 1 :]
    assert sbx.commands.run("pwd", cwd=rel, user=USER).stdout == f"{udir}\n"


def test_missing_cwd_is_invalid_argument(sbx, udir):
    with pytest.raises(InvalidArgumentException):
        sbx.commands.run("pwd", cwd=f"{udir}/does-not-exist")


def test_user_root_vs_user(sbx):
    cmd = "whoami; id -u; id -g"
    assert sbx.commands.run(cmd, user="root").stdout == "root\n0\n0\n"
    assert sbx.commands.run(cmd, user=USER).stdout == "user\n1000\n1000\n"


def test_unknown_user_is_rejected(sbx):
    with pytest.raises(AuthenticationException):
        sbx.commands.run("true", user="no-such-user-xyz")


def test_init_sets_default_user_and_global_env(sbx, envd):
    assert envd.init_status == 204, f"POST /init answered {envd.init_status}: {envd.init_error}"
    r = sbx.commands.run(f'whoami; pwd; echo "${INIT_ENV}"')
    assert r.stdout == f"user\n{USER_HOME}\n{INIT_ENV_VALUE}\n"
    # Relative file paths resolve to the default user's home too.
    info = sbx.files.write("init-default-user.txt", "x")
    try:
        assert info.path == f"{USER_HOME}/init-default-user.txt"
        assert sbx.files.get_info(info.path).owner == USER
    finally:
        sbx.files.remove(info.path)


# --- background, wait, kill, connect ----------------------------------------------


def test_background_and_wait(sbx):
    h = sbx.commands.run("sleep 0.3; echo done", background=True)
    assert isinstance(h.pid, int) and h.pid > 0
    r = h.wait()
    assert (r.stdout, r.stderr, r.exit_code) == ("done\n", "", 0)


def test_background_nonzero_exit(sbx):
    h = sbx.commands.run("echo partial; exit 5", background=True)
    with pytest.raises(CommandExitException) as exc:
        h.wait()
    assert (exc.value.exit_code, exc.value.stdout, exc.value.error) == (
        5,
        "partial\n",
        "exit status 5",
    )


def test_kill(sbx):
    h = sbx.commands.run("sleep 30", background=True)
    try:
        assert h.pid in listed_pids(sbx)
        assert sbx.commands.kill(h.pid) is True
        with pytest.raises(CommandExitException) as exc:
            h.wait()
        assert (exc.value.exit_code, exc.value.error) == (-1, "signal: killed")
        assert h.pid not in listed_pids(sbx)
    finally:
        quiet_kill(sbx, h.pid)


def test_handle_kill(sbx):
    h = sbx.commands.run("sleep 30", background=True)
    assert h.kill() is True
    with pytest.raises(CommandExitException) as exc:
        h.wait()
    assert exc.value.exit_code == -1


def test_kill_unknown_pid_returns_false(sbx):
    # A real process that envd did not start: envd must not signal it.
    stranger = subprocess.Popen(["sleep", "30"])
    try:
        assert sbx.commands.kill(stranger.pid) is False
        time.sleep(0.1)
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()
    assert sbx.commands.kill(4_000_000_000) is False


def test_connect_to_running_process(sbx):
    h = sbx.commands.run("cat", background=True, stdin=True)
    try:
        h.disconnect()  # closes the Start stream; the process keeps running
        assert h.pid in listed_pids(sbx)
        h2 = sbx.commands.connect(h.pid)
        assert h2.pid == h.pid
        sbx.commands.send_stdin(h.pid, "after connect\n")
        sbx.commands.close_stdin(h.pid)
        r = h2.wait()
        assert (r.stdout, r.exit_code) == ("after connect\n", 0)
    finally:
        quiet_kill(sbx, h.pid)


def test_connect_shares_live_output(sbx):
    h = sbx.commands.run("cat", background=True, stdin=True)
    try:
        h2 = sbx.commands.connect(h.pid)
        h.send_stdin("both see this\n")
        h.close_stdin()
        assert h.wait().stdout == "both see this\n"
        assert h2.wait().stdout == "both see this\n"
    finally:
        quiet_kill(sbx, h.pid)


def test_connect_unknown_pid(sbx):
    with pytest.raises(NotFoundException):
        sbx.commands.connect(4_000_000_000)


def test_connect_recently_exited_process_serves_end(sbx):
    h = sbx.commands.run("echo early; exit 4", background=True)
    with pytest.raises(CommandExitException):
        h.wait()
    # Exits are retained for 30 s; output is not replayed.
    h2 = sbx.commands.connect(h.pid)
    assert h2.pid == h.pid
    with pytest.raises(CommandExitException) as exc:
        h2.wait()
    assert (exc.value.exit_code, exc.value.stdout) == (4, "")


# --- stdin ------------------------------------------------------------------------


def test_send_stdin_and_close_stdin(sbx):
    h = sbx.commands.run("cat", background=True, stdin=True)
    try:
        sbx.commands.send_stdin(h.pid, "line one\n")
        h.send_stdin(MULTIBYTE.encode())
        sbx.commands.close_stdin(h.pid)
        r = h.wait()
        assert (r.stdout, r.exit_code) == ("line one\n" + MULTIBYTE, 0)
    finally:
        quiet_kill(sbx, h.pid)


def test_close_stdin_is_idempotent(sbx):
    # The sleep keeps the process alive for the second close.
    h = sbx.commands.run("wc -c; sleep 1", background=True, stdin=True)
    try:
        h.send_stdin("12345")
        h.close_stdin()
        h.close_stdin()
        assert h.wait().stdout.strip() == "5"
    finally:
        quiet_kill(sbx, h.pid)


def test_stream_input(sbx):
    h = sbx.commands.run("cat", background=True, stdin=True)
    try:
        sbx.commands.stream_input(h.pid, ["a\n", b"b\n", "ç\n"])
        sbx.commands.close_stdin(h.pid)
        assert h.wait().stdout == "a\nb\nç\n"
    finally:
        quiet_kill(sbx, h.pid)


def test_without_stdin_the_process_reads_eof(sbx):
    # stdin=False (the SDK default) means /dev/null: `cat` ends at once.
    r = sbx.commands.run("cat; echo rc=$?", timeout=10)
    assert r.stdout == "rc=0\n"


def test_send_stdin_to_process_without_stdin_fails(sbx):
    h = sbx.commands.run("sleep 30", background=True)
    try:
        with pytest.raises(SandboxException):
            sbx.commands.send_stdin(h.pid, "x")
    finally:
        quiet_kill(sbx, h.pid)


def test_resize_of_a_non_pty_process_fails(sbx):
    h = sbx.commands.run("sleep 30", background=True)
    try:
        with pytest.raises(SandboxException):
            sbx.pty.resize(h.pid, PtySize(rows=10, cols=10))
    finally:
        quiet_kill(sbx, h.pid)


def test_send_stdin_unknown_pid(sbx):
    with pytest.raises(NotFoundException):
        sbx.commands.send_stdin(4_000_000_000, "x")


# --- timeout, list -------------------------------------------------------------------


def test_timeout_kills_the_process(sbx):
    started = time.monotonic()
    with pytest.raises(TimeoutException):
        sbx.commands.run("sleep 29.5", timeout=1)
    assert time.monotonic() - started < 10
    gone = wait_until(
        lambda: not any(
            p.args == ["-l", "-c", "sleep 29.5"] for p in sbx.commands.list()
        )
        and not host_processes_with_cmdline(b"sleep\x0029.5\x00"),
        timeout=5,
    )
    assert gone, "the timed-out process is still running"


def test_short_command_within_timeout_is_not_killed(sbx):
    assert sbx.commands.run("sleep 0.2; echo ok", timeout=3).stdout == "ok\n"


def test_timeout_zero_means_unlimited(sbx):
    assert sbx.commands.run("sleep 0.2; echo ok", timeout=0).stdout == "ok\n"


def test_list_shows_running_background_process(sbx):
    h = sbx.commands.run(
        "sleep 30", background=True, envs={"LIST_ME": "1"}, cwd="/tmp", user=USER
    )
    try:
        procs = [p for p in sbx.commands.list() if p.pid == h.pid]
        assert procs == [
            ProcessInfo(
                pid=h.pid,
                tag=None,
                cmd="/bin/bash",
                args=["-l", "-c", "sleep 30"],
                envs={"LIST_ME": "1"},
                cwd="/tmp",
            )
        ]
    finally:
        assert sbx.commands.kill(h.pid) is True
    assert wait_until(lambda: h.pid not in listed_pids(sbx), timeout=3)


def test_list_omits_finished_processes(sbx):
    h = sbx.commands.run("true", background=True)
    h.wait()
    assert h.pid not in listed_pids(sbx)


# --- async API -------------------------------------------------------------------------


def test_async_commands(envd):
    async def main():
        sandbox = await AsyncSandbox.create()
        r = await sandbox.commands.run("echo async; echo e >&2", user=USER)
        assert (r.stdout, r.stderr, r.exit_code) == ("async\n", "e\n", 0)

        with pytest.raises(CommandExitException) as exc:
            await sandbox.commands.run("exit 9")
        assert exc.value.exit_code == 9

        chunks = []
        h = await sandbox.commands.run(
            "cat", background=True, stdin=True, on_stdout=chunks.append
        )
        await sandbox.commands.send_stdin(h.pid, "ping\n")
        for _ in range(500):
            if "".join(chunks) == "ping\n":
                break
            await asyncio.sleep(0.02)
        assert "".join(chunks) == "ping\n"
        assert h.pid in {p.pid for p in await sandbox.commands.list()}
        assert await sandbox.commands.kill(h.pid) is True
        with pytest.raises(CommandExitException) as exc:
            await h.wait()
        assert exc.value.exit_code == -1
        assert await sandbox.commands.kill(4_000_000_000) is False

        with pytest.raises(TimeoutException):
            await sandbox.commands.run("sleep 29.25", timeout=1)

    asyncio.run(main())
