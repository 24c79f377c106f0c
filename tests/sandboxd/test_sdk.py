"""The official SDK (non-debug mode) against dsh-sandboxd: lifecycle, files,
commands and isolation. Exact values throughout."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from e2b import Sandbox, SandboxQuery, SandboxState
from e2b.exceptions import AuthenticationException, SandboxException



def _sandbox_dir(daemon: Daemon, sandbox_id: str) -> Path:
    return daemon.state_dir / "sandboxes" / sandbox_id


def test_create_run_and_files(daemon: Daemon):
    sbx = Sandbox.create(envs={"GREETING": "hello from create"}, metadata={"suite": "sandboxd", "case": "create"})
    try:
        assert re.fullmatch(r"[a-z0-9]{20}", sbx.sandbox_id)
        result = sbx.commands.run("echo $GREETING; id -un; pwd; cat /etc/hostname")
        assert result.exit_code == 0
        assert result.stderr == ""
        assert result.stdout == f"hello from create\nuser\n/home/user\n{sbx.sandbox_id}\n"

        info = sbx.write = sbx.files.write("/home/user/notes.txt", "some notes\n")
        assert info.path == "/home/user/notes.txt"
        assert sbx.files.read("/home/user/notes.txt") == "some notes\n"
        assert sbx.commands.run("wc -c < /home/user/notes.txt").stdout == "11\n"
        assert [e.name for e in sbx.files.list("/home/user") if e.name == "notes.txt"] == ["notes.txt"]

        got = sbx.get_info()
        assert got.sandbox_id == sbx.sandbox_id
        assert got.template_id == "base"
        assert got.state == SandboxState.RUNNING
        assert got.metadata == {"suite": "sandboxd", "case": "create"}
        assert got.envd_version == "0.6.13"
        assert sbx.is_running() is True
    finally:
        assert sbx.kill() is True


def test_set_timeout_extends_and_expiry_kills(daemon: Daemon):
    sbx = Sandbox.create(timeout=60)
    sandbox_id = sbx.sandbox_id
    before = sbx.get_info().end_at
    sbx.set_timeout(600)
    after = sbx.get_info().end_at
    assert 530 <= (after - before).total_seconds() <= 545
    sbx.set_timeout(1)
    # The reaper kills it; it leaves the list once its directory is removed.
    deadline = time.monotonic() + 10
    while any(s.sandbox_id == sandbox_id for s in Sandbox.list().next_items()):
        assert time.monotonic() < deadline, "the sandbox did not time out"
        time.sleep(0.1)
    assert sbx.is_running() is False
    assert not _sandbox_dir(daemon, sandbox_id).exists()
    assert Sandbox.kill(sandbox_id) is False


def test_pause_and_connect_keep_files(daemon: Daemon):
    sbx = Sandbox.create(envs={"KEPT": "env survives pause"})
    try:
        sbx.files.write("/home/user/project/main.py", "print('kept')\n")
        sbx.commands.run("mkdir -p /home/user/.cache && echo state > /home/user/.cache/s")
        assert sbx.pause() is True
        assert Sandbox.get_info(sbx.sandbox_id).state == SandboxState.PAUSED
        assert sbx.is_running() is False
        # Pausing twice: the API answers 409, the SDK returns False.
        assert Sandbox.pause(sbx.sandbox_id) is False

        again = Sandbox.connect(sbx.sandbox_id)
        assert again.sandbox_id == sbx.sandbox_id
        assert again.is_running() is True
        assert again.files.read("/home/user/project/main.py") == "print('kept')\n"
        out = again.commands.run("python3 /home/user/project/main.py; cat /home/user/.cache/s; echo $KEPT")
        assert out.stdout == "kept\nstate\nenv survives pause\n"
        assert Sandbox.get_info(sbx.sandbox_id).state == SandboxState.RUNNING
        # Connecting to a running sandbox just returns it.
        assert Sandbox.connect(sbx.sandbox_id).files.read("/home/user/project/main.py") == "print('kept')\n"
    finally:
        assert Sandbox.kill(sbx.sandbox_id) is True


def test_kill_removes_everything(daemon: Daemon):
    sbx = Sandbox.create()
    sandbox_id = sbx.sandbox_id
    sbx.files.write("/home/user/x", "x")
    directory = _sandbox_dir(daemon, sandbox_id)
    init_pid = int((directory / "init.pid").read_text().split()[0])
    assert (directory / "home/user/x").read_text() == "x"
    assert sbx.kill() is True
    # The kill answers once every process has SIGKILL pending and the record is gone;
    # reaping and the files follow right after (lifecycle::kill_then_tear_down).
    deadline = time.monotonic() + 10
    while (directory.exists() or Path(f"/proc/{init_pid}").exists()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not directory.exists()
    assert not Path(f"/proc/{init_pid}").exists()
    assert str(directory) not in Path("/proc/self/mountinfo").read_text()
    assert Sandbox.kill(sandbox_id) is False
    with pytest.raises(SandboxException):
        Sandbox.connect(sandbox_id)


def test_list_filters_by_metadata_and_state(daemon: Daemon):
    a = Sandbox.create(metadata={"suite-list": "yes", "name": "a"})
    b = Sandbox.create(metadata={"suite-list": "yes", "name": "b"})
    try:
        listed = Sandbox.list(query=SandboxQuery(metadata={"suite-list": "yes"})).next_items()
        assert sorted(s.sandbox_id for s in listed) == sorted([a.sandbox_id, b.sandbox_id])
        assert {s.metadata["name"] for s in listed} == {"a", "b"}
        assert all(s.state == SandboxState.RUNNING for s in listed)
        only_a = Sandbox.list(query=SandboxQuery(metadata={"suite-list": "yes", "name": "a"})).next_items()
        assert [s.sandbox_id for s in only_a] == [a.sandbox_id]

        b.pause()
        paused = Sandbox.list(query=SandboxQuery(metadata={"suite-list": "yes"}, state=[SandboxState.PAUSED])).next_items()
        assert [(s.sandbox_id, s.state) for s in paused] == [(b.sandbox_id, SandboxState.PAUSED)]
        running = Sandbox.list(query=SandboxQuery(metadata={"suite-list": "yes"}, state=[SandboxState.RUNNING])).next_items()
        assert [s.sandbox_id for s in running] == [a.sandbox_id]
    finally:
        Sandbox.kill(a.sandbox_id)
        Sandbox.kill(b.sandbox_id)
    assert Sandbox.list(query=SandboxQuery(metadata={"suite-list": "yes"})).next_items() == []


def test_files_are_isolated_from_the_host_and_other_sandboxes(daemon: Daemon):
    a = Sandbox.create()
    b = Sandbox.create()
    try:
        marker = f"isolation-{a.sandbox_id}"
        a.files.write(f"/home/user/{marker}", "only in a")
        a.commands.run(f"echo tmp > /tmp/{marker}; echo etc > /etc/{marker}", user="root")
        assert a.files.read(f"/home/user/{marker}") == "only in a"
        # Not in the other sandbox.
        assert b.files.exists(f"/home/user/{marker}") is False
        probe = b.commands.run(f"ls /tmp/{marker} /etc/{marker} /home/user/{marker} 2>&1; true")
        assert probe.stdout.count("No such file or directory") == 3
        # Not on the host.
        for path in (f"/home/user/{marker}", f"/tmp/{marker}", f"/etc/{marker}"):
            assert not Path(path).exists(), path
        # It lives in a's state only.
        assert (_sandbox_dir(daemon, a.sandbox_id) / "home/user" / marker).read_text() == "only in a"
        # The host's files are not visible in a sandbox (the state dir, this checkout).
        assert a.files.exists(str(daemon.state_dir)) is False
        assert a.files.exists(str(Path(__file__).resolve())) is False
    finally:
        a.kill()
        b.kill()


def test_wrong_api_key_and_unknown_template(daemon: Daemon):
    with pytest.raises(AuthenticationException, match="invalid API key"):
        Sandbox.create(api_key="e2b_0000000000000000000000000000000000000000")
    with pytest.raises(SandboxException, match="template 'no-such-template' not found"):
        Sandbox.create("no-such-template")


def test_presigned_file_urls_work_without_headers(daemon: Daemon):
    import urllib.error
    import urllib.request

    sbx = Sandbox.create()
    try:
        sbx.files.write("/home/user/download.txt", "via a presigned URL")
        url = sbx.download_url("/home/user/download.txt")
        assert url.startswith(f"{daemon.url}/files?path=%2Fhome%2Fuser%2Fdownload.txt&signature=v1_")
        # A plain GET, as a browser or curl would do it: no E2b-Sandbox-Id, no token header.
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200
            assert response.read() == b"via a presigned URL"

        upload = sbx.upload_url("/home/user/uploaded.txt", use_signature_expiration=60)
        boundary = "dshboundary"
        body = (
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"uploaded.txt\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\nuploaded bytes\r\n--{boundary}--\r\n"
        ).encode()
        request = urllib.request.Request(
            upload, data=body, method="POST",
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        assert sbx.files.read("/home/user/uploaded.txt") == "uploaded bytes"

        # A signature that matches no sandbox is not routed.
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(url.replace("signature=v1_", "signature=v1_x"), timeout=10)
        assert err.value.code == 404
    finally:
        sbx.kill()


def test_commands_on_a_warm_sandbox_do_not_stall(sandbox):
    # Reused connections through the proxy: without TCP_NODELAY EVERY streamed command
    # waits ~40 ms for a delayed ACK. Typical here: ~4 ms. The fastest call is what tells
    # the two apart: a loaded machine slows some calls, never all of them below 40 ms.
    durations = []
    for _ in range(15):
        start = time.perf_counter()
        assert sandbox.commands.run("echo ok").stdout == "ok\n"
        durations.append(time.perf_counter() - start)
    assert min(durations) < 0.030, sorted(durations)


def test_pty_through_the_proxy(sandbox):
    from e2b.sandbox.commands.command_handle import PtySize

    chunks: list[bytes] = []
    handle = sandbox.pty.create(PtySize(rows=24, cols=80))
    sandbox.pty.send_stdin(handle.pid, b"echo pty-$((40+2))\nexit\n")
    result = handle.wait(on_pty=chunks.append)
    assert result.exit_code == 0
    assert b"pty-42\r\n" in b"".join(chunks)


def test_a_sandbox_that_dies_becomes_paused(daemon: Daemon):
    import os
    import signal

    sbx = Sandbox.create()
    try:
        sbx.files.write("/home/user/before-crash", "kept")
        directory = _sandbox_dir(daemon, sbx.sandbox_id)
        os.kill(int((directory / "init.pid").read_text().split()[0]), signal.SIGKILL)
        deadline = time.monotonic() + 5
        while Sandbox.get_info(sbx.sandbox_id).state != SandboxState.PAUSED:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert sbx.is_running() is False
        again = Sandbox.connect(sbx.sandbox_id)
        assert again.files.read("/home/user/before-crash") == "kept"
    finally:
        Sandbox.kill(sbx.sandbox_id)


def test_get_host_reaches_a_server_in_the_sandbox_through_the_daemon(daemon: Daemon):
    """Ports are served at the daemon's address in the SDK's own forms: the Host name
    `get_host(port)` gives, or E2B's routing headers; the sandbox's port is not the host's."""
    import httpx

    sbx = Sandbox.create(network={"allow_public_traffic": False})
    try:
        sbx.files.write("/home/user/www/index.html", "hello through the daemon\n")
        sbx.commands.run("cd /home/user/www && python3 -m http.server 8000 --bind 127.0.0.1", background=True)
        host = sbx.get_host(8000)
        assert host == f"8000-{sbx.sandbox_id}.localhost"
        token = sbx.traffic_access_token
        assert token is not None and len(token) == 64
        with httpx.Client() as client:
            headers = {"Host": host, "e2b-traffic-access-token": token}
            deadline = time.monotonic() + 15
            while True:
                response = client.get(f"{daemon.url}/index.html", headers=headers)
                if response.status_code == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert (response.status_code, response.text) == (200, "hello through the daemon\n")
            by_header = client.get(
                f"{daemon.url}/index.html",
                headers={"E2b-Sandbox-Id": sbx.sandbox_id, "E2b-Sandbox-Port": "8000", "e2b-traffic-access-token": token},
            )
            assert by_header.text == "hello through the daemon\n"
            # Without the traffic token: 403; a port nobody listens on: E2B's 502.
            assert client.get(f"{daemon.url}/index.html", headers={"Host": host}).status_code == 403
            closed = client.get(f"{daemon.url}/", headers={"Host": f"8001-{sbx.sandbox_id}.localhost", "e2b-traffic-access-token": token})
            assert closed.status_code == 502
            assert closed.json() == {
                "code": 502,
                "message": "The sandbox is running but port is not open",
                "sandboxId": sbx.sandbox_id,
                "port": 8001,
            }
            # The sandbox's port is not a port of the host.
            with pytest.raises(httpx.ConnectError):
                client.get("http://127.0.0.1:8000/index.html")
    finally:
        assert sbx.kill() is True
