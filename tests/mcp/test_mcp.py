"""`dsh mcp` driven by the official MCP Python SDK, over stdio and streamable HTTP.

Each server opens one embedded local sandbox; every check below is against real
processes in it. After each server exits, none of its sandbox processes may remain.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import (
    THROUGH_EDGE,
    Proc,
    alive,
    descendants,
    dsh_bin,
    free_port,
    is_sandbox_init,
    is_sleep,
    processes,
    sandbox_host,
    sandbox_processes_of,
    server_env,
    wait_until,
)

# Every tool of shared/spec/tools.md: exactly these are listed.
TOOLS = {
    "read", "write", "edit", "glob", "grep",
    "bash", "task_output", "task_kill",
    "terminal_open", "terminal_send", "terminal_read", "terminal_signal",
    "terminal_close", "terminal_list",
    "lsp", "run_code",
}  # fmt: skip

# Where dsh installs language servers in the sandbox itself (npm), when the sandbox
# daemon cannot provide them from its layers.
SERVERS_DIR = "/home/user/workspace/.dsh-e2b/servers"
PYRIGHT = "pyright@1.1.414"
# What the first use of pyright on a machine reports while the daemon builds its layer:
# the wait (after 1 s, then every 5 s with the seconds), then the result.
INSTALLING = f"installing {PYRIGHT} (first use on this machine)…"
INSTALLED = re.compile(rf"installed {re.escape(PYRIGHT)} in \d+ s")
if THROUGH_EDGE:
    # E2B has no layers: dsh installs the server with npm in the sandbox itself.
    INSTALLING = f"installing {PYRIGHT} in the sandbox (first use)…"
    INSTALLED = re.compile(rf"installed {re.escape(PYRIGHT)} in the sandbox in \d+ s")
CACHED = f"{PYRIGHT}: cached on this machine"
APP = 'def greet(name: str) -> str:\n    \"\"\"Say hello: 你好 café.\"\"\"\n    return "hi " + name\n\n\nprint(greet("x"))\n'


def text_of(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def check_tools(session: ClientSession) -> set[str]:
    listed = await session.list_tools()
    names = {tool.name for tool in listed.tools}
    assert names == TOOLS, f"missing: {TOOLS - names}; unexpected: {names - TOOLS}"
    assert len(names) == len(listed.tools), "a tool is listed twice"
    for tool in listed.tools:
        assert tool.input_schema.get("type") == "object", (tool.name, tool.input_schema)
        assert tool.description and len(tool.description) > 20, tool.name
    return names


async def check_write_bash(session: ClientSession, content: str) -> None:
    wrote = await session.call_tool("write", {"file_path": "notes/mcp.txt", "content": content})
    assert not wrote.is_error, text_of(wrote)
    assert wrote.structured_content["operation"] == "create"
    assert wrote.structured_content["path"].endswith("/notes/mcp.txt")

    ran = await session.call_tool("bash", {"command": "cat notes/mcp.txt", "description": "show the file"})
    assert not ran.is_error, text_of(ran)
    assert ran.structured_content["stdout"] == content
    assert ran.structured_content["exit_code"] == 0
    assert text_of(ran).startswith(content)


async def check_terminal(session: ClientSession) -> str:
    opened = await session.call_tool("terminal_open", {"type": "shell"})
    assert not opened.is_error, text_of(opened)
    sid = opened.structured_content["sessionId"]
    assert sid.startswith("pty-")
    sent = await session.call_tool("terminal_send", {"sessionId": sid, "text": "echo PTY-你好"})
    assert not sent.is_error, text_of(sent)
    assert sent.structured_content["waitReason"] == "stdin_read"
    viewport = sent.structured_content["viewport"]
    # The command line and its output: the output is a line of its own.
    assert "PTY-你好" in viewport.splitlines(), viewport
    listed = await session.call_tool("terminal_list", {})
    assert [s["sessionId"] for s in listed.structured_content["result"]] == [sid]
    return sid


async def check_bad_calls(session: ClientSession) -> None:
    # A missing required field: an error result naming the field, and the server lives on.
    bad = await session.call_tool("write", {"content": "no path"})
    assert bad.is_error
    assert "file_path" in text_of(bad)
    assert bad.structured_content["error"]["code"] == "invalid_arguments"
    # A wrong type.
    bad = await session.call_tool("bash", {"command": 42, "description": "typed wrong"})
    assert bad.is_error
    assert "command" in text_of(bad)
    # An unknown tool: an error result that names the real ones.
    unknown = await session.call_tool("no_such_tool", {"x": 1})
    assert unknown.is_error
    message = text_of(unknown)
    assert "no_such_tool" in message
    assert "bash" in message and "terminal_open" in message
    # Still serving.
    ok = await session.call_tool("bash", {"command": "echo alive", "description": "still up"})
    assert ok.structured_content["stdout"] == "alive\n"


async def check_run_code(session: ClientSession) -> None:
    # A program that calls another tool: it sees the file `write` created.
    ran = await session.call_tool(
        "run_code",
        {
            "code": "const r = await tools.bash({command: 'cat notes/mcp.txt | wc -l', "
            "description: 'count'}); console.log('counted'); return {n: 6 * 7, lines: r.stdout.trim()}",
            "description": "arithmetic and a tool call",
        },
    )
    assert not ran.is_error, text_of(ran)
    assert ran.structured_content["result"] == {"n": 42, "lines": "2"}, ran.structured_content
    assert "counted" in str(ran.structured_content["logs"])
    bad = await session.call_tool("run_code", {"description": "no code"})
    assert bad.is_error and "code" in text_of(bad)


async def hover_with_progress(session: ClientSession) -> list[str]:
    """Hovers `greet` in app.py (written first) with a progress token; returns the
    progress messages received, checking their progress values increase."""
    await session.call_tool("write", {"file_path": "app.py", "content": APP})
    received: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        received.append((progress, message))

    hover = await session.call_tool(
        "lsp",
        {"operation": "hover", "file_path": "app.py", "line": 6, "character": 7},
        progress_callback=on_progress,
    )
    assert not hover.is_error, text_of(hover)
    assert "greet" in text_of(hover) and "你好 café" in text_of(hover), text_of(hover)
    values = [value for value, _ in received]
    assert values == sorted(set(values)), f"progress must increase: {received}"
    return [message or "" for _, message in received]


def assert_first_use(messages: list[str]) -> None:
    """The layer was built for this request: the wait, then how long it took."""
    assert messages, "no progress notification during a first-use install"
    assert messages[0] == INSTALLING, messages
    assert all(m.startswith(f"{INSTALLING} ") for m in messages[1:-1]), messages
    assert INSTALLED.fullmatch(messages[-1]), messages


async def sandbox_facts(session: ClientSession) -> tuple[str, str]:
    """(the sandbox's hostname: its id, whether npm ever installed in it)."""
    ran = await session.call_tool(
        "bash",
        {
            "command": f"hostname; test -e {SERVERS_DIR} && echo npm-ran || echo no-npm; "
            "ls /.dsh/layers/*/node_modules/.bin/pyright-langserver >/dev/null && echo layer",
            "description": "where pyright came from",
        },
    )
    lines = ran.structured_content["stdout"].split()
    expected = ["npm-ran"] if THROUGH_EDGE else ["no-npm", "layer"]
    assert lines[1:] == expected, text_of(ran)
    return lines[0], lines[1]


async def check_lsp(session: ClientSession) -> None:
    bad = await session.call_tool("lsp", {"operation": "hover", "file_path": "app.py", "line": 1})
    assert bad.is_error and "character" in text_of(bad), text_of(bad)
    # No preparation: the first lsp call has the sandbox daemon build pinned pyright into
    # a layer every sandbox sees; the client hears about the wait.
    assert_first_use(await hover_with_progress(session))
    await sandbox_facts(session)


def stdio_params(tmp_path: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=dsh_bin(), args=["mcp"], env=server_env(tmp_path / "state"), cwd=str(tmp_path)
    )


def stdio_server_pid() -> int:
    """The `dsh mcp` child of this test process (stdio_client does not expose it). As an
    ordinary user it starts itself again in the user's namespace: the outer one is it."""
    procs = processes()
    mine = [p for p in descendants(os.getpid(), procs) if p.argv[1:2] == ("mcp",)]
    outer = [p for p in mine if p.ppid not in procs or procs[p.ppid].argv[1:2] != ("mcp",)]
    assert len(outer) == 1, mine
    return outer[0].pid


def assert_all_gone(procs: list[Proc], what: str, timeout: float = 15) -> None:
    wait_until(lambda: not any(alive(p) for p in procs), timeout, f"{what} to end: {procs}")


# --- stdio -------------------------------------------------------------------


def test_stdio_tools_end_to_end(tmp_path):
    seen: list[Proc] = []

    async def main():
        async with stdio_client(stdio_params(tmp_path)) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.server_info.name == "dsh"
                assert init.capabilities.tools is not None
                await check_tools(session)
                await check_write_bash(session, "héllo from MCP\nline two\n")
                await check_terminal(session)
                await check_bad_calls(session)
                await check_run_code(session)
                pid = stdio_server_pid()
                seen.extend(sandbox_processes_of(pid))
                seen.append(processes()[pid])
                assert any(is_sandbox_init(p) for p in seen), seen

    anyio.run(main)
    # stdin closed: the server disposes the sandbox and exits.
    assert_all_gone(seen, "the server and its sandbox")


def test_stdio_lsp(tmp_path):
    async def main():
        async with stdio_client(stdio_params(tmp_path)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await check_lsp(session)

    anyio.run(main)


def test_stdio_client_disconnects_mid_call(tmp_path):
    seen: list[Proc] = []

    async def main():
        async with stdio_client(stdio_params(tmp_path)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                pid = None

                async def long_call():
                    await session.call_tool("bash", {"command": "sleep 30", "description": "long"})

                async with anyio.create_task_group() as tg:
                    tg.start_soon(long_call)
                    pid = await anyio.to_thread.run_sync(stdio_server_pid)
                    sleeps = await anyio.to_thread.run_sync(
                        lambda: wait_until(
                            lambda: [p for p in descendants(sandbox_host(pid)) if is_sleep(p, "30")],
                            20,
                            "`sleep 30` to start in the sandbox",
                        )
                    )
                    seen.extend(sleeps)
                    seen.extend(sandbox_processes_of(pid))
                    seen.append(processes()[pid])
                    # The client goes away mid-call.
                    tg.cancel_scope.cancel()

    started = time.monotonic()
    anyio.run(main)
    assert_all_gone(seen, "the server, its sandbox and the `sleep 30`")
    assert time.monotonic() - started < 25, "cleanup waited for the command instead of ending it"


def test_stdio_sigterm_disposes_the_sandbox(tmp_path):
    seen: list[Proc] = []

    async def main():
        async with stdio_client(stdio_params(tmp_path)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("terminal_open", {"type": "shell"})
                await session.call_tool(
                    "bash", {"command": "sleep 30", "description": "bg", "run_in_background": True}
                )
                pid = stdio_server_pid()
                sleeps = wait_until(
                    lambda: [p for p in descendants(sandbox_host(pid)) if is_sleep(p, "30")], 20, "`sleep 30`"
                )
                seen.extend(sleeps + sandbox_processes_of(pid) + [processes()[pid]])
                os.kill(pid, signal.SIGTERM)
                await anyio.to_thread.run_sync(
                    lambda: assert_all_gone(seen, "the server, its sandbox and its background task")
                )

    try:
        anyio.run(main)
    except BaseException as err:  # the client may notice the server going away
        if not isinstance(err, (Exception, BaseExceptionGroup)):
            raise
    assert_all_gone(seen, "the server and its sandbox")


# --- streamable HTTP ---------------------------------------------------------


def test_http_tools_end_to_end(http_server):
    async def main():
        async with streamable_http_client(http_server.url) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.server_info.name == "dsh"
                await check_tools(session)
                await check_write_bash(session, "over HTTP\n")
                await check_terminal(session)
                await check_bad_calls(session)
                await check_lsp(session)

    anyio.run(main)
    assert http_server.proc.poll() is None, "the server must outlive its sessions"


def test_http_sessions_are_owners_and_cleanup_on_disconnect(http_server):
    server_pid = http_server.proc.pid

    async def first_session():
        async with streamable_http_client(http_server.url) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                opened = await session.call_tool("terminal_open", {"type": "shell"})
                sid = opened.structured_content["sessionId"]
                # A foreground job in the terminal, still running when the client leaves.
                sent = await session.call_tool(
                    "terminal_send", {"sessionId": sid, "text": "sleep 31", "timeoutMs": 300}
                )
                assert sent.structured_content["waitReason"] in ("timeout", "inferred_idle")

                async def long_call():
                    await session.call_tool("bash", {"command": "sleep 30", "description": "long"})

                async with anyio.create_task_group() as tg:
                    tg.start_soon(long_call)
                    running = await anyio.to_thread.run_sync(
                        lambda: wait_until(
                            lambda: [
                                p for p in descendants(sandbox_host(server_pid)) if is_sleep(p, "30") or is_sleep(p, "31")
                            ]
                            if len([p for p in descendants(sandbox_host(server_pid)) if is_sleep(p, "30") or is_sleep(p, "31")]) == 2
                            else None,
                            20,
                            "`sleep 30` (bash) and `sleep 31` (terminal) to run",
                        )
                    )
                    # The client disconnects mid-call.
                    tg.cancel_scope.cancel()
                return running

    running = anyio.run(first_session)
    assert_all_gone(running, "the disconnected session's `sleep 30` and terminal job")
    assert http_server.proc.poll() is None, "the server must survive a client disconnecting"
    assert not [p for p in descendants(sandbox_host(server_pid)) if is_sleep(p, "30") or is_sleep(p, "31")]

    async def second_session():
        async with streamable_http_client(http_server.url) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.call_tool("terminal_list", {})
                assert not listed.is_error, text_of(listed)
                assert listed.structured_content["result"] == []
                echo = await session.call_tool("bash", {"command": "echo second", "description": "x"})
                assert echo.structured_content["stdout"] == "second\n"

    anyio.run(second_session)


def test_http_two_sessions_have_their_own_terminals(http_server):
    async def main():
        async with streamable_http_client(http_server.url) as (r1, w1), streamable_http_client(
            http_server.url
        ) as (r2, w2):
            async with ClientSession(r1, w1) as one, ClientSession(r2, w2) as two:
                await one.initialize()
                await two.initialize()
                sid = (await one.call_tool("terminal_open", {"type": "shell"})).structured_content["sessionId"]
                theirs = await two.call_tool("terminal_list", {})
                assert theirs.structured_content["result"] == []
                # Another session's terminal is not reachable.
                poke = await two.call_tool("terminal_send", {"sessionId": sid, "text": "echo hi"})
                assert poke.is_error, text_of(poke)
                # But they share one sandbox: a file one writes, the other reads.
                await one.call_tool("write", {"file_path": "shared.txt", "content": "same sandbox\n"})
                read_back = await two.call_tool("read", {"file_path": "shared.txt"})
                assert "same sandbox" in text_of(read_back)

    anyio.run(main)


# --- no sandbox ----------------------------------------------------------------


def test_unreachable_sandbox_is_a_tool_error_not_a_crash(tmp_path):
    """A daemon that is not there: tools are still listed, each call is an error result
    saying what to do, and the server keeps serving."""
    from conftest import free_port

    params = stdio_params(tmp_path)
    params.args = ["mcp", "--api-url", f"http://127.0.0.1:{free_port()}", "--api-key", "nope"]

    async def main():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await check_tools(session)
                for _ in range(2):  # retried on every call, never fatal
                    failed = await session.call_tool("bash", {"command": "true", "description": "x"})
                    assert failed.is_error
                    message = text_of(failed)
                    assert "sandbox could not be opened" in message, message
                    assert "What to do" in message, message

    anyio.run(main)


# --- one daemon, two sandboxes ------------------------------------------------


@pytest.mark.timeout(300)
def test_a_second_sandbox_hovers_from_the_layer_the_first_built(tmp_path):
    """Two `dsh mcp` servers, one after the other, each with its own sandbox on one
    `dsh sandbox serve`: the first sandbox's first hover waits for the daemon to build
    pyright's layer; the second one's is served from it (no npm anywhere)."""
    port = free_port()
    state = tmp_path / "daemon"
    log = tmp_path / "daemon.log"
    with open(log, "wb") as err:
        daemon = subprocess.Popen(
            [dsh_bin(), "sandbox", "serve", "--listen", f"127.0.0.1:{port}", "--state-dir", str(state)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=server_env(tmp_path / "embedded"),
        )
    try:

        def listening():
            if daemon.poll() is not None:
                raise AssertionError(f"dsh sandbox serve exited:\n{log.read_text()}")
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        wait_until(listening, 30, "dsh sandbox serve to listen")
        params = stdio_params(tmp_path)
        params.env = {
            **params.env,
            "E2B_API_URL": f"http://127.0.0.1:{port}",
            "DSH_SANDBOXD_STATE": str(state),
        }

        async def one_sandbox() -> tuple[str, list[str]]:
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    messages = await hover_with_progress(session)
                    host, _ = await sandbox_facts(session)
                    return host, messages

        first_host, first = anyio.run(one_sandbox)
        assert_first_use(first)
        second_host, second = anyio.run(one_sandbox)
        assert second_host != first_host, "the second server must open its own sandbox"
        assert second == [CACHED], second
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()
            raise
