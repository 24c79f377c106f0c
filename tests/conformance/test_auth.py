"""Access token and /files URL signing (spec 1.6), on a second dsh-envd started
with --access-token. The SDK is set up the way `Sandbox.connect` sets it up for
a secured cloud sandbox: X-Access-Token on every request, signed file URLs."""

from __future__ import annotations

import json
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from e2b import AuthenticationException, Sandbox, get_signature
from e2b.connection_config import ConnectionConfig
from packaging.version import Version

from conftest import plain_envd

TOKEN = "conformance-secret-token"
UNAUTHORIZED = {
    "code": 401,
    "message": "unauthorized access, please provide a valid access token or method signing if supported",
}


@pytest.fixture(scope="module")
def secured_url():
    with plain_envd("--access-token", TOKEN) as url:
        yield url


def sandbox(url: str, token: str | None) -> Sandbox:
    headers = {"E2b-Sandbox-Id": "secured", "E2b-Sandbox-Port": "49983"}
    if token:
        headers["X-Access-Token"] = token
    return Sandbox(
        sandbox_id="secured",
        sandbox_domain=None,
        envd_version=Version("99.99.99"),
        envd_access_token=token,
        traffic_access_token=None,
        connection_config=ConnectionConfig(
            debug=True, sandbox_url=url, extra_sandbox_headers=headers
        ),
    )


def http(method: str, url: str, body: bytes | None = None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


@pytest.fixture
def workdir():
    with tempfile.TemporaryDirectory(prefix="dsh-auth-") as d:
        yield d


def test_sdk_with_token_works(secured_url, workdir):
    sbx = sandbox(secured_url, TOKEN)
    assert sbx.commands.run("echo secured").stdout == "secured\n"
    sbx.files.write(f"{workdir}/a.txt", "token ok")
    assert sbx.files.read(f"{workdir}/a.txt") == "token ok"
    assert sbx.files.exists(f"{workdir}/a.txt") is True


def test_sdk_without_token_is_rejected(secured_url, workdir):
    sbx = sandbox(secured_url, None)
    with pytest.raises(AuthenticationException):
        sbx.commands.run("true")
    with pytest.raises(AuthenticationException):
        sbx.files.exists(workdir)
    with pytest.raises(AuthenticationException):
        sbx.files.read(f"{workdir}/a.txt")


def test_rpc_without_token_body(secured_url, workdir):
    for token in (None, "wrong"):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["X-Access-Token"] = token
        status, body = http(
            "POST", f"{secured_url}/filesystem.Filesystem/Stat",
            json.dumps({"path": workdir}).encode(), headers,
        )
        assert (status, json.loads(body)) == (401, UNAUTHORIZED)


def test_health_needs_no_token(secured_url):
    assert http("GET", f"{secured_url}/health")[0] == 204


def test_signed_urls(secured_url, workdir):
    sbx = sandbox(secured_url, TOKEN)
    path = f"{workdir}/signed.bin"
    up = sbx.upload_url(path)
    assert "signature=v1_" in up
    status, _ = http("POST", up, b"\x00signed\xff", {"Content-Type": "application/octet-stream"})
    assert status == 200
    status, body = http("GET", sbx.download_url(path))
    assert (status, body) == (200, b"\x00signed\xff")
    # With an expiration in the future.
    status, body = http("GET", sbx.download_url(path, use_signature_expiration=60))
    assert (status, body) == (200, b"\x00signed\xff")
    # A read signature does not authorize a write.
    read_sig = get_signature(path, "read", None, TOKEN)["signature"]
    q = urllib.parse.urlencode({"path": path, "signature": read_sig})
    assert http("POST", f"{secured_url}/files?{q}", b"x",
                {"Content-Type": "application/octet-stream"})[0] == 401


def test_bad_signatures_are_401(secured_url, workdir):
    path = f"{workdir}/f.txt"
    Path(path).write_text("x")

    def get(query, headers=None):
        return http("GET", f"{secured_url}/files?{urllib.parse.urlencode(query)}", None, headers)

    assert get({"path": path})[0] == 401  # neither token nor signature
    assert get({"path": path}, {"X-Access-Token": TOKEN})[0] == 200
    sig = get_signature(path, "read", None, TOKEN)["signature"]
    assert get({"path": path, "signature": sig})[0] == 200
    # A present but wrong token fails even with a valid signature.
    assert get({"path": path, "signature": sig}, {"X-Access-Token": "wrong"})[0] == 401
    assert get({"path": path, "signature": sig[:-2] + "AA"})[0] == 401
    other = get_signature(f"{workdir}/other", "read", None, TOKEN)["signature"]
    assert get({"path": path, "signature": other})[0] == 401
    past = int(time.time()) - 10
    raw = get_signature(path, "read", None, TOKEN, -10)
    assert raw["expiration"] <= past + 1
    assert get({"path": path, "signature": raw["signature"],
                "signature_expiration": raw["expiration"]})[0] == 401
    # The signature covers the username.
    root_sig = get_signature(path, "read", "root", TOKEN)["signature"]
    assert get({"path": path, "signature": root_sig, "username": "root"})[0] == 200
    assert get({"path": path, "signature": root_sig})[0] == 401
