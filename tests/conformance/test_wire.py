"""Wire details the SDK tolerates but the spec fixes (shared/spec/envd-protocol.md).

A raw HTTP/1.1 client speaking Connect JSON, so a deviation the SDK would
paper over (a missing end-stream envelope, an int64 sent as a number, a
non-Connect error body) still shows up.
"""

from __future__ import annotations

import base64
import gzip
import http.client
import json
import re
import struct
import time
import urllib.parse
import uuid

import pytest

from conftest import INIT_ENV, INIT_ENV_VALUE, USER, wait_until

B64_STD_PADDED = re.compile(r"\A(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?\Z")
RFC3339 = re.compile(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6}|\.\d{9})?Z\Z")
ROOT_AUTH = "Basic " + base64.b64encode(b"root:").decode()


class Raw:
    def __init__(self, envd):
        u = urllib.parse.urlsplit(envd.url)
        self.host, self.port = u.hostname, u.port

    def _conn(self):
        return http.client.HTTPConnection(self.host, self.port, timeout=20)

    def request(self, method, path, body=None, headers=None):
        c = self._conn()
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read()
        c.close()
        return r, data

    def unary(self, method, msg, headers=None):
        return self.request(
            "POST",
            f"/{method}",
            body=json.dumps(msg).encode(),
            headers={
                "Content-Type": "application/json",
                "Connect-Protocol-Version": "1",
                **(headers or {}),
            },
        )

    def stream(self, method, msg, headers=None):
        """Returns (response, [(flags, payload dict)]) for a server stream."""
        body = json.dumps(msg).encode()
        c = self._conn()
        c.request(
            "POST",
            f"/{method}",
            body=struct.pack(">BI", 0, len(body)) + body,
            headers={
                "Content-Type": "application/connect+json",
                "Connect-Protocol-Version": "1",
                "Connect-Timeout-Ms": "20000",
                **(headers or {}),
            },
        )
        r = c.getresponse()
        frames = []
        if r.status == 200:
            while True:
                head = r.read(5)
                if not head:
                    break
                assert len(head) == 5, f"truncated envelope header {head!r}"
                flags, length = struct.unpack(">BI", head)
                payload = r.read(length)
                assert len(payload) == length, "truncated envelope"
                frames.append((flags, json.loads(payload)))
        rest = r.read()
        c.close()
        return r, frames, rest

    def upload(self, path, data: bytes):
        q = urllib.parse.urlencode({"path": path})
        return self.request(
            "POST", f"/files?{q}", body=data,
            headers={"Content-Type": "application/octet-stream"},
        )


@pytest.fixture(scope="module")
def raw(envd):
    return Raw(envd)


def events(frames):
    assert frames, "no envelopes"
    *data, last = frames
    assert last[0] == 0x02, f"the stream does not end with an end-stream envelope: {frames!r}"
    assert all(flags == 0 for flags, _ in data), frames
    return [p["event"] for _, p in data], last[1]


def test_health(raw):
    r, body = raw.request("GET", "/health")
    assert (r.status, body) == (204, b"")
    assert r.getheader("Cache-Control") == "no-store"


def test_init_reply(raw):
    r, body = raw.request(
        "POST", "/init",
        body=json.dumps({"defaultUser": USER, "envVars": {INIT_ENV: INIT_ENV_VALUE}}).encode(),
        headers={"Content-Type": "application/json"},
    )
    assert (r.status, body) == (204, b"")
    assert r.getheader("Cache-Control") == "no-store"
    assert r.getheader("X-Envd-Version")


def test_start_stream_framing_and_events(raw):
    r, frames, rest = raw.stream(
        "process.Process/Start",
        {"process": {"cmd": "/bin/bash", "args": ["-c", "printf 'hi\\n'"]}, "stdin": False},
    )
    assert r.status == 200
    assert r.getheader("Content-Type") == "application/connect+json"
    evs, trailer = events(frames)
    assert trailer == {}
    assert rest == b""
    assert list(evs[0]) == ["start"] and isinstance(evs[0]["start"]["pid"], int)
    out = b""
    for ev in evs[1:-1]:
        assert list(ev) == ["data"], ev
        chunk = ev["data"]["stdout"]
        assert B64_STD_PADDED.match(chunk), chunk
        out += base64.b64decode(chunk)
    assert out == b"hi\n"
    # Defaults are omitted: no exitCode for 0, no error.
    assert evs[-1] == {"end": {"exited": True, "status": "exit status 0"}}


def test_end_event_for_nonzero_exit(raw):
    _, frames, _ = raw.stream(
        "process.Process/Start",
        {"process": {"cmd": "/bin/sh", "args": ["-c", "exit 3"]}, "stdin": False},
    )
    evs, trailer = events(frames)
    assert trailer == {}
    assert evs[-1] == {
        "end": {"exitCode": 3, "exited": True, "status": "exit status 3", "error": "exit status 3"}
    }


def test_end_event_for_signal(raw):
    _, frames, _ = raw.stream(
        "process.Process/Start",
        {"process": {"cmd": "/bin/sh", "args": ["-c", "kill -KILL $$"]}, "stdin": False},
    )
    evs, _ = events(frames)
    assert evs[-1] == {
        "end": {"exitCode": -1, "status": "signal: killed", "error": "signal: killed"}
    }


def test_missing_program_is_exit_127(raw):
    _, frames, _ = raw.stream(
        "process.Process/Start",
        {"process": {"cmd": "/no/such/program"}, "stdin": False},
    )
    evs, trailer = events(frames)
    assert trailer == {}
    assert list(evs[0]) == ["start"]
    assert evs[-1]["end"]["exitCode"] == 127


def test_keepalive_events_while_idle(raw):
    _, frames, _ = raw.stream(
        "process.Process/Start",
        {"process": {"cmd": "/bin/sleep", "args": ["2.2"]}, "stdin": False},
        headers={"Keepalive-Ping-Interval": "1"},
    )
    evs, _ = events(frames)
    assert list(evs[0]) == ["start"]
    assert list(evs[-1]) == ["end"]
    assert evs[1:-1] and all(ev == {"keepalive": {}} for ev in evs[1:-1]), evs


def test_stream_error_is_http_200_with_end_stream_error(raw):
    r, frames, _ = raw.stream(
        "process.Process/Connect", {"process": {"pid": 4_000_000_000}}
    )
    assert r.status == 200
    assert len(frames) == 1, frames
    flags, payload = frames[0]
    assert flags == 0x02
    assert payload["error"]["code"] == "not_found"
    assert isinstance(payload["error"]["message"], str)


def test_bad_timeout_header_is_invalid_argument(raw):
    r, frames, _ = raw.stream(
        "process.Process/Start",
        {"process": {"cmd": "/bin/true"}, "stdin": False},
        headers={"Connect-Timeout-Ms": "soon"},
    )
    # Stream errors, even before the first message, are HTTP 200 + end-stream.
    assert r.status == 200
    assert len(frames) == 1 and frames[0][0] == 0x02, frames
    assert frames[0][1]["error"]["code"] == "invalid_argument"


def test_unary_error_shape(raw, udir):
    r, body = raw.unary("filesystem.Filesystem/Stat", {"path": f"{udir}/missing"})
    assert r.status == 404
    assert r.getheader("Content-Type") == "application/json"
    err = json.loads(body)
    assert err["code"] == "not_found"
    assert isinstance(err["message"], str)


def test_unknown_user_is_unauthenticated(raw, udir):
    bad = "Basic " + base64.b64encode(b"no-such-user-xyz:").decode()
    r, body = raw.unary(
        "filesystem.Filesystem/Stat", {"path": udir}, headers={"Authorization": bad}
    )
    assert r.status == 401
    assert json.loads(body)["code"] == "unauthenticated"


def test_entry_info_json(raw, udir):
    path = f"{udir}/twelve.txt"
    r, _ = raw.upload(path, b"123456789012")
    assert r.status == 200
    # A field this envd does not know must be ignored (newer SDKs add fields).
    r, body = raw.unary(
        "filesystem.Filesystem/Stat",
        {"path": path, "someFutureField": 1},
        headers={"Authorization": ROOT_AUTH},
    )
    assert r.status == 200
    entry = json.loads(body)["entry"]
    modified = entry.pop("modifiedTime")
    assert RFC3339.match(modified), modified
    assert entry == {
        "name": "twelve.txt",
        "type": "FILE_TYPE_FILE",
        "path": path,
        "size": "12",  # int64 is a JSON string
        "mode": 420,
        "permissions": "-rw-r--r--",
        "owner": USER,  # uploads without `username` belong to the default user
        "group": USER,
    }


def test_make_dir_already_exists_code(raw, udir):
    r, body = raw.unary("filesystem.Filesystem/MakeDir", {"path": udir})
    assert (r.status, json.loads(body)["code"]) == (409, "already_exists")


def test_send_signal_other_than_term_or_kill_is_unimplemented(raw, sbx):
    h = sbx.commands.run("sleep 10", background=True)
    try:
        r, body = raw.unary(
            "process.Process/SendSignal", {"process": {"pid": h.pid}, "signal": "SIGNAL_UNSPECIFIED"}
        )
        assert (r.status, json.loads(body)["code"]) == (501, "unimplemented")
        r, body = raw.unary(
            "process.Process/SendSignal", {"process": {"pid": h.pid}, "signal": "SIGNAL_SIGTERM"}
        )
        assert (r.status, json.loads(body)) == (200, {})
        _, frames, _ = raw.stream("process.Process/Connect", {"process": {"pid": h.pid}})
        evs, _ = events(frames)
        assert evs[-1]["end"]["status"] == "signal: terminated"
    finally:
        sbx.commands.kill(h.pid)


def test_files_download_headers_and_gzip(raw, udir):
    path = f"{udir}/dl.txt"
    content = b"download me\n" * 100
    raw.upload(path, content)
    q = urllib.parse.urlencode({"path": path})
    r, body = raw.request("GET", f"/files?{q}")
    assert (r.status, body) == (200, content)
    assert r.getheader("Content-Encoding") in (None, "identity")
    assert r.getheader("Content-Disposition") == 'inline; filename="dl.txt"'
    r, body = raw.request("GET", f"/files?{q}", headers={"Accept-Encoding": "gzip"})
    assert r.status == 200
    assert r.getheader("Content-Encoding") == "gzip"
    assert gzip.decompress(body) == content


def test_files_missing_error_body(raw, udir):
    path = f"{udir}/nope.txt"
    q = urllib.parse.urlencode({"path": path})
    r, body = raw.request("GET", f"/files?{q}")
    assert r.status == 404
    assert r.getheader("Content-Type") == "application/json; charset=utf-8"
    assert json.loads(body) == {"code": 404, "message": f"path '{path}' does not exist"}


def test_files_upload_responses(raw, udir):
    path = f"{udir}/up.bin"
    r, body = raw.upload(path, b"\x00\x01")
    assert r.status == 200
    assert json.loads(body) == [{"path": path, "name": "up.bin", "type": "file"}]

    boundary = uuid.uuid4().hex
    parts = b""
    for name in ("m1.txt", "m2.txt"):
        parts += (
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"{udir}/{name}\"\r\nContent-Type: text/plain\r\n\r\n{name}\r\n"
        ).encode()
    parts += f"--{boundary}--\r\n".encode()
    r, body = raw.request(
        "POST", "/files", body=parts,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert r.status == 200
    assert json.loads(body) == [
        {"path": f"{udir}/m1.txt", "name": "m1.txt", "type": "file"},
        {"path": f"{udir}/m2.txt", "name": "m2.txt", "type": "file"},
    ]


def test_files_upload_to_a_directory_is_400(raw, udir):
    r, body = raw.upload(udir, b"x")
    assert r.status == 400
    assert json.loads(body)["code"] == 400


def test_process_environment_is_assembled_not_inherited(raw):
    _, frames, _ = raw.stream(
        "process.Process/Start",
        {"process": {"cmd": "/usr/bin/env", "envs": {"X": "1", "HOME": "/override"}}, "stdin": False},
        headers={"Authorization": ROOT_AUTH},
    )
    evs, _ = events(frames)
    out = b"".join(base64.b64decode(e["data"]["stdout"]) for e in evs if "data" in e)
    env = dict(line.split("=", 1) for line in out.decode().splitlines())
    for optional in ("E2B_SANDBOX_ID", "E2B_TEMPLATE_ID"):
        env.pop(optional, None)
    assert env == {
        # PATH from envd's own environment (conftest starts it with this one).
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": "/override",  # request envs win
        "USER": "root",
        "LOGNAME": "root",
        "E2B_SANDBOX": "true",
        INIT_ENV: INIT_ENV_VALUE,
        "X": "1",
    }


def test_envs_endpoint(raw):
    r, body = raw.request("GET", "/envs")
    assert r.status == 200
    assert r.getheader("Cache-Control") == "no-store"
    envs = json.loads(body)
    assert envs[INIT_ENV] == INIT_ENV_VALUE
    assert envs["E2B_SANDBOX"] == "true"


def test_metrics_endpoint(raw):
    r, body = raw.request("GET", "/metrics")
    assert r.status == 200
    m = json.loads(body)
    assert set(m) == {
        "ts", "cpu_count", "cpu_used_pct", "mem_total", "mem_used", "mem_cache",
        "mem_total_mib", "mem_used_mib", "disk_used", "disk_total",
    }
    assert all(isinstance(v, int) for k, v in m.items() if k != "cpu_used_pct")
    assert isinstance(m["cpu_used_pct"], (int, float))
    assert m["cpu_count"] >= 1 and m["mem_total"] > m["mem_used"] > 0


def test_files_range_request(raw, udir):
    path = f"{udir}/range.txt"
    raw.upload(path, b"0123456789")
    q = urllib.parse.urlencode({"path": path})
    r, body = raw.request("GET", f"/files?{q}", headers={"Range": "bytes=2-5"})
    assert (r.status, body) == (206, b"2345")
    assert r.getheader("Content-Range") == "bytes 2-5/10"


def test_files_two_parts_with_the_same_path_is_400(raw, udir):
    boundary = uuid.uuid4().hex
    part = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
        f"filename=\"{udir}/same.txt\"\r\n\r\nx\r\n"
    )
    body = (part + part + f"--{boundary}--\r\n").encode()
    r, resp = raw.request(
        "POST", "/files", body=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert r.status == 400
    assert json.loads(resp)["code"] == 400


def test_binary_stdout_is_byte_exact(raw):
    _, frames, _ = raw.stream(
        "process.Process/Start",
        {"process": {"cmd": "/usr/bin/printf", "args": ["\\377\\376\\000\\303("]}, "stdin": False},
    )
    evs, _ = events(frames)
    out = b"".join(base64.b64decode(e["data"]["stdout"]) for e in evs if "data" in e)
    assert out == b"\xff\xfe\x00\xc3("


def test_stdin_unset_means_an_open_pipe(raw, sbx):
    import threading

    result = {}

    def run():
        result["frames"] = raw.stream(
            "process.Process/Start", {"process": {"cmd": "/bin/cat"}}
        )[1]

    t = threading.Thread(target=run, daemon=True)
    t.start()
    pid = wait_until(
        lambda: next((p.pid for p in sbx.commands.list() if p.cmd == "/bin/cat"), None)
    )
    assert pid, "cat never showed up in List"
    sbx.commands.send_stdin(pid, "piped\n")
    sbx.commands.close_stdin(pid)
    t.join(10)
    evs, _ = events(result["frames"])
    out = b"".join(base64.b64decode(e["data"]["stdout"]) for e in evs if "data" in e)
    assert out == b"piped\n"
    assert evs[-1] == {"end": {"exited": True, "status": "exit status 0"}}


def test_watcher_lifecycle(raw, udir):
    r, body = raw.unary("filesystem.Filesystem/CreateWatcher", {"path": udir})
    assert r.status == 200
    wid = json.loads(body)["watcherId"]
    assert re.fullmatch(r"w[a-z0-9]{20}", wid), wid
    raw.upload(f"{udir}/w.txt", b"x")
    evs = []
    for _ in range(200):
        r, body = raw.unary("filesystem.Filesystem/GetWatcherEvents", {"watcherId": wid})
        assert r.status == 200
        evs += json.loads(body).get("events", [])
        if any(e.get("type") == "EVENT_TYPE_WRITE" for e in evs):
            break
        time.sleep(0.05)
    assert {"name": "w.txt", "type": "EVENT_TYPE_CREATE"} in evs
    r, body = raw.unary("filesystem.Filesystem/RemoveWatcher", {"watcherId": wid})
    assert (r.status, json.loads(body)) == (200, {})
    for method in ("GetWatcherEvents", "RemoveWatcher"):
        r, body = raw.unary(f"filesystem.Filesystem/{method}", {"watcherId": wid})
        assert (r.status, json.loads(body)["code"]) == (404, "not_found")
