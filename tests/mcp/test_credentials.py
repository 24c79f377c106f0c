"""Credentials the model never sees: `dsh mcp` with `[sandbox.secrets]` and
`[sandbox.network.rules]` in its dsh.toml.

The API the sandbox calls is the stand-in of crates/sandboxd/tests/control/credentials.rs
(`standins/api_server.py`), in a network namespace of this test's own behind a veth pair,
at 198.51.100.3 (TEST-NET-2, routed nowhere) as `api.example.test`, with a certificate
of a CA the test makes; `[sandboxd] egress_hosts` and `egress_trust` point the embedded
daemon at it. It records every request's headers. The secret's value is in dsh's
environment only: the stand-in must receive it, the model (the tool's output) and the
sandbox (its processes' environments) must not.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from conftest import ROOT, wait_until
from test_mcp import stdio_params, text_of

HOST_SIDE = "198.51.100.1"
INTERNET = "198.51.100.2"
API = "198.51.100.3"
NAME = "api.example.test"
# Long and random enough that finding it anywhere is no accident.
SECRET = "dsh-mcp-secret-4c9e2a7b1f3d5e8a0c6b9d2f4a7e1c3b"
VARIABLE = "DSH_MCP_TEST_API_TOKEN"
API_SERVER = ROOT / "crates/sandboxd/tests/control/standins/api_server.py"


def run(*args: str) -> None:
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def openssl(directory: Path, *args: str) -> None:
    done = subprocess.run(["openssl", *args], cwd=directory, capture_output=True, text=True)
    assert done.returncode == 0, f"openssl {args}: {done.stderr}"


def make_test_ca(directory: Path) -> tuple[Path, Path, Path]:
    """(the CA's certificate, the API's certificate, its key), made with openssl."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl(directory, "req", "-x509", *ec, "-days", "2", "-subj", "/CN=dsh test CA",
            "-keyout", "ca.key", "-out", "ca.pem")  # fmt: skip
    openssl(directory, "req", *ec, "-subj", f"/CN={NAME}", "-keyout", "api.key", "-out", "api.csr")
    (directory / "api.ext").write_text(f"subjectAltName=DNS:{NAME}\nextendedKeyUsage=serverAuth\n")
    openssl(directory, "x509", "-req", "-in", "api.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "api.ext", "-out", "api.pem")  # fmt: skip
    return directory / "ca.pem", directory / "api.pem", directory / "api.key"


@pytest.fixture
def stand_in_api(tmp_path):
    """The stand-in API in its own "internet", and the request log it writes. Every
    internet has the same addresses: the lock the daemon's tests take (network.rs) keeps
    two from existing at once."""
    lock = open(Path(os.environ.get("TMPDIR") or "/tmp") / "dsh-test-internet.lock", "a")
    fcntl.flock(lock, fcntl.LOCK_EX)
    tag = os.getpid() % 100_000
    netns, host_if, inet_if = f"dsh-inet-mcp{tag}", f"dshm{tag}h", f"dshm{tag}i"
    server = None
    try:
        run("ip", "netns", "add", netns)
        run("ip", "link", "add", host_if, "type", "veth", "peer", "name", inet_if)
        run("ip", "link", "set", inet_if, "netns", netns)
        run("ip", "addr", "add", f"{HOST_SIDE}/24", "dev", host_if)
        run("ip", "link", "set", host_if, "up")
        for address in (INTERNET, API):
            run("ip", "-n", netns, "addr", "add", f"{address}/24", "dev", inet_if)
        run("ip", "-n", netns, "link", "set", inet_if, "up")
        run("ip", "-n", netns, "link", "set", "lo", "up")
        # Through the edge, the daemon behind it was started trusting certificates made
        # ahead (scripts/test's mcp_edge step); here, the test makes its own.
        made = os.environ.get("DSH_MCP_STANDIN_CERTS")
        if made:
            certs = Path(made)
            ca, cert, key = certs / "ca.pem", certs / "api.pem", certs / "api.key"
        else:
            certs = tmp_path / "certs"
            certs.mkdir()
            ca, cert, key = make_test_ca(certs)
        log = tmp_path / "requests.jsonl"
        log.write_text("")
        server = subprocess.Popen(
            ["ip", "netns", "exec", netns, "python3", str(API_SERVER), API, str(cert), str(key), str(log)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        def listening() -> bool:
            assert server.poll() is None, "the API stand-in exited"
            for port in (80, 443):
                with socket.socket() as s:
                    s.settimeout(1)
                    if s.connect_ex((API, port)) != 0:
                        return False
            return True

        wait_until(listening, 15, "the API stand-in to listen")
        hosts = tmp_path / "egress-hosts"
        hosts.write_text(f"{API} {NAME}\n")
        yield {"ca": ca, "hosts": hosts, "log": log}
    finally:
        if server is not None:
            server.kill()
            server.wait()
        # Deleting the namespace deletes its veth end, and with it the host's.
        subprocess.run(["ip", "netns", "del", netns], stderr=subprocess.DEVNULL)
        lock.close()


def received(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def header_values(request: dict, name: str) -> list[str]:
    return [value for header, value in request["headers"] if header == name]


def test_a_rule_sends_a_host_secret_the_model_and_the_sandbox_never_see(tmp_path, stand_in_api):
    (tmp_path / "dsh.toml").write_text(
        f"""
[sandbox.network.rules."{NAME}".headers]
Authorization = "Bearer ${{e2b.secrets.api_token}}"

[sandbox.secrets]
api_token = {{ env = "{VARIABLE}" }}

[sandbox.network]
allow_out = ["{NAME}"]
allow_internet_access = false

[sandboxd]
egress_hosts = "{stand_in_api["hosts"]}"
egress_trust = "{stand_in_api["ca"]}"
"""
    )
    params = stdio_params(tmp_path)
    params.env = {**params.env, VARIABLE: SECRET}
    stderr_path = tmp_path / "dsh-mcp.stderr"
    seen_by_model: list[str] = []

    async def main():
        with open(stderr_path, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()

                    async def bash(command: str, description: str):
                        result = await session.call_tool(
                            "bash", {"command": command, "description": description}
                        )
                        seen_by_model.append(text_of(result))
                        seen_by_model.append(json.dumps(result.structured_content))
                        assert not result.is_error, text_of(result)
                        return result.structured_content

                    # The stand-in's name, as DNS would give it (the host's does not know it).
                    hosts = await bash(
                        f"echo '{API} {NAME}' | sudo tee -a /etc/hosts >/dev/null", "name the stand-in"
                    )
                    assert hosts["exit_code"] == 0, hosts
                    called = await bash(f"curl -sS https://{NAME}/x", "call the API")
                    assert (called["stdout"], called["exit_code"]) == ("ok /x\n", 0), called
                    # Nothing else goes out (port 8080 of the same server: no name allowed).
                    denied = await bash(f"curl -sS --max-time 5 http://{API}:8080/denied", "refused")
                    assert denied["exit_code"] != 0, denied
                    env = await bash("env", "the sandbox's environment")
                    assert env["exit_code"] == 0 and "PATH=" in env["stdout"], env
                    # Every process's environment in the sandbox, as root.
                    environs = await bash(
                        "sudo sh -c 'for f in /proc/[0-9]*/environ; do tr \"\\0\" \"\\n\" < $f; done' 2>/dev/null; true",
                        "every process's environment",
                    )
                    assert "HOME=" in environs["stdout"], environs

    anyio.run(main)
    requests = received(stand_in_api["log"])
    assert [(r["path"], r["tls"], r["port"]) for r in requests] == [("/x", True, 443)], requests
    assert header_values(requests[0], "authorization") == [f"Bearer {SECRET}"]
    assert len(seen_by_model) == 10
    for seen in seen_by_model:
        assert SECRET not in seen, seen
    # Nor does dsh log it (RUST_LOG=dsh=debug: the secret's name is logged, not its value).
    stderr = stderr_path.read_text(errors="replace")
    assert "secret put into the control plane" in stderr, stderr
    assert SECRET not in stderr


def test_a_missing_secret_source_is_a_tool_error_that_names_it(tmp_path):
    """The variable a secret comes from is not set: no sandbox is created, and each call
    says which secret and which variable, as a tool error (the server lives on)."""
    (tmp_path / "dsh.toml").write_text(
        f"""
[sandbox.secrets]
api_token = {{ env = "{VARIABLE}" }}

[sandbox.network.rules."{NAME}".headers]
Authorization = "Bearer ${{e2b.secrets.api_token}}"
"""
    )
    params = stdio_params(tmp_path)
    params.env = {k: v for k, v in params.env.items() if k != VARIABLE}

    async def main():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for _ in range(2):
                    failed = await session.call_tool("bash", {"command": "true", "description": "x"})
                    assert failed.is_error
                    message = text_of(failed)
                    assert message.startswith(
                        "the sandbox could not be opened: invalid request: secret api_token "
                        f"(sandbox.secrets): the environment variable {VARIABLE} is not set\n"
                    ), message

    anyio.run(main)
