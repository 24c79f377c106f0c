//! Inbound through the daemon: every port of a sandbox is reached at the daemon's address
//! by `E2b-Sandbox-Id` + `E2b-Sandbox-Port` (or a `<port>-<id>.<domain>` Host), in the
//! sandbox's own network namespace — so two sandboxes both serve on 8000, and a
//! sandbox's port is not a port of the host.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::harness::{Client, KillOnDrop, config, wait_until};

/// A tiny WebSocket echo server (RFC 6455 handshake, text frames up to 125 bytes), since
/// the sandbox's Python has no WebSocket module.
const WS_ECHO: &str = r#"
import base64, hashlib, socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 9000)); s.listen(1)
while True:
    c, _ = s.accept()
    head = b""
    while b"\r\n\r\n" not in head:
        head += c.recv(1024)
    key = [l.split(b":", 1)[1].strip() for l in head.split(b"\r\n") if l.lower().startswith(b"sec-websocket-key")][0]
    accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    while True:
        h = c.recv(2)
        if len(h) < 2 or h[0] & 0x0f == 8:
            break
        n = h[1] & 0x7f; mask = c.recv(4); data = bytes(b ^ mask[i % 4] for i, b in enumerate(c.recv(n)))
        c.sendall(bytes([0x81, len(data)]) + data)
    c.close()
"#;

async fn serve(c: &Client, sandbox: &Value, script: &str) {
    let (_, code) = c.run(sandbox, &format!("{script} >/dev/null 2>&1 &")).await;
    assert_eq!(code, 0);
}

async fn get(c: &Client, id: &str, port: &str, extra: &[(&str, &str)]) -> (StatusCode, String) {
    let mut request = c
        .http
        .get(format!("{}/index.txt", c.base))
        .header("E2b-Sandbox-Id", id)
        .header("E2b-Sandbox-Port", port);
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_port_of_a_sandbox_is_reached_through_the_daemon() {
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-ports-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    // The default: private networks.
    let daemon = dsh_sandboxd::Daemon::start(config(&state)).await.unwrap();
    let c = Client::new(&daemon.url(), daemon.api_key());

    // Two sandboxes serve on the same port, each its own files.
    let a = c.create(json!({"templateID": "base"})).await;
    let b = c.create(json!({"templateID": "base", "network": {"allowPublicTraffic": false}})).await;
    for (sandbox, name) in [(&a, "a"), (&b, "b")] {
        c.write_file(sandbox, "/home/user/index.txt", &format!("served by {name}")).await;
        serve(&c, sandbox, "cd /home/user && exec python3 -m http.server 8000 --bind 127.0.0.1")
            .await;
    }
    let (a_id, b_id) = (a["sandboxID"].as_str().unwrap(), b["sandboxID"].as_str().unwrap());
    assert!(a["trafficAccessToken"].is_null());
    let token = b["trafficAccessToken"].as_str().unwrap().to_owned();
    assert_eq!(token.len(), 64);
    let auth = [("e2b-traffic-access-token", token.as_str())];
    wait_until("both servers answer", Duration::from_secs(15), async || {
        get(&c, a_id, "8000", &[]).await.0 == StatusCode::OK
            && get(&c, b_id, "8000", &auth).await.0 == StatusCode::OK
    })
    .await;
    assert_eq!(get(&c, a_id, "8000", &[]).await, (StatusCode::OK, "served by a".into()));
    assert_eq!(get(&c, b_id, "8000", &auth).await, (StatusCode::OK, "served by b".into()));
    // HTTP/2 (cleartext, prior knowledge) too: the host form in the authority (the name
    // resolved to the daemon by the client, so no DNS entry is needed), or the headers.
    let h2 = reqwest::Client::builder()
        .http2_prior_knowledge()
        .resolve(&format!("8000-{a_id}.localhost"), daemon.addr())
        .build()
        .unwrap();
    let url = format!("http://8000-{a_id}.localhost:{}/index.txt", daemon.addr().port());
    let by_name = h2.get(&url).send().await.unwrap();
    let response = (by_name.version(), by_name.status());
    assert_eq!(response, (reqwest::Version::HTTP_2, StatusCode::OK));
    let over_h2 = h2
        .get(format!("{}/index.txt", c.base))
        .header("E2b-Sandbox-Id", a_id)
        .header("E2b-Sandbox-Port", "8000")
        .send()
        .await
        .unwrap();
    assert_eq!(over_h2.version(), reqwest::Version::HTTP_2);
    assert_eq!(over_h2.text().await.unwrap(), "served by a");
    // The Host form routes too.
    let by_host = c
        .http
        .get(format!("{}/index.txt", c.base))
        .header("Host", format!("8000-{a_id}.localhost"))
        .send()
        .await
        .unwrap();
    assert_eq!(by_host.text().await.unwrap(), "served by a");
    // Not a port of the host.
    assert!(std::net::TcpStream::connect(("127.0.0.1", 8000)).is_err());

    // allowPublicTraffic: false wants the traffic token.
    let (status, body) = get(&c, b_id, "8000", &[]).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, _) = get(&c, b_id, "8000", &[("e2b-traffic-access-token", "wrong")]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // A port nobody listens on: E2B's 502 body.
    let (status, body) = get(&c, a_id, "8001", &[]).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body,
        json!({"code": 502, "message": "The sandbox is running but port is not open", "sandboxId": a_id, "port": 8001})
    );
    // Ports outside 1-65535 are a typed 400.
    for bad in ["0", "65536", "x"] {
        let (status, body) = get(&c, a_id, bad, &[]).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }

    // A WebSocket through the daemon: the upgrade, then frames both ways.
    serve(&c, &a, &format!("exec python3 -c '{}'", WS_ECHO.replace('\'', "'\\''"))).await;
    let addr = daemon.addr();
    let mut ws = None;
    for _ in 0..100 {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let request = format!(
            "GET /chat HTTP/1.1\r\nHost: {addr}\r\nE2b-Sandbox-Id: {a_id}\r\nE2b-Sandbox-Port: 9000\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut head = vec![0u8; 1024];
        let n = stream.read(&mut head).await.unwrap();
        let head = String::from_utf8_lossy(&head[..n]).to_string();
        if head.starts_with("HTTP/1.1 101") {
            assert!(head.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), "{head}");
            ws = Some(stream);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut ws = ws.expect("the WebSocket server never upgraded");
    for text in ["hello", "through the daemon"] {
        let mask = [1u8, 2, 3, 4];
        let mut frame = vec![0x81, 0x80 | text.len() as u8];
        frame.extend_from_slice(&mask);
        frame.extend(text.bytes().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        ws.write_all(&frame).await.unwrap();
        let mut echo = vec![0u8; 2 + text.len()];
        ws.read_exact(&mut echo).await.unwrap();
        assert_eq!((echo[0], &echo[2..]), (0x81, text.as_bytes()));
    }
    // maskRequestHost: the Host the sandbox sees.
    let masked = c
        .create(json!({"templateID": "base", "network": {"maskRequestHost": "custom-host.test:${PORT}"}}))
        .await;
    let masked_id = masked["sandboxID"].as_str().unwrap();
    let echo_host = "import http.server as h\nclass H(h.BaseHTTPRequestHandler):\n    def do_GET(self):\n        body = self.headers[\"Host\"].encode()\n        self.send_response(200); self.end_headers(); self.wfile.write(body)\n    def log_message(self, *a): pass\nh.HTTPServer((\"127.0.0.1\", 8080), H).serve_forever()\n";
    c.write_file(&masked, "/tmp/echo_host.py", echo_host).await;
    serve(&c, &masked, "exec python3 /tmp/echo_host.py").await;
    wait_until("the Host echo answers", Duration::from_secs(15), async || {
        get(&c, masked_id, "8080", &[]).await.0 == StatusCode::OK
    })
    .await;
    assert_eq!(
        get(&c, masked_id, "8080", &[]).await,
        (StatusCode::OK, "custom-host.test:8080".into())
    );
    let bad = c
        .call(Method::POST, "/sandboxes", Some(json!({"network": {"maskRequestHost": "a b"}})))
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    daemon.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traffic_to_a_paused_sandbox_with_auto_resume_wakes_it() {
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-resume-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let daemon = dsh_sandboxd::Daemon::start(config(&state)).await.unwrap();
    let c = Client::new(&daemon.url(), daemon.api_key());
    let waking = c.create(json!({"templateID": "base", "autoResume": {"enabled": true}})).await;
    let sleeping = c.create(json!({"templateID": "base"})).await;
    for sandbox in [&waking, &sleeping] {
        c.write_file(sandbox, "/home/user/kept.txt", "kept").await;
        let id = sandbox["sandboxID"].as_str().unwrap();
        let paused = c.call(Method::POST, &format!("/sandboxes/{id}/pause"), None).await;
        assert_eq!(paused.status, StatusCode::NO_CONTENT);
    }
    // Any request to the sandbox resumes it first; its files are back.
    assert_eq!(c.read_file(&waking, "/home/user/kept.txt").await, (StatusCode::OK, "kept".into()));
    let id = waking["sandboxID"].as_str().unwrap();
    let detail = c.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(detail.body["state"], "running");
    // Without autoResume it stays paused and says so.
    let (status, body) = c.read_file(&sleeping, "/home/user/kept.txt").await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert!(body.contains("is paused"), "{body}");
    daemon.shutdown().await.unwrap();
}

/// A sandbox killed while a command streams through the daemon: the client's connection
/// is reset (a transport failure, which the E2B SDKs answer with a health check and "the
/// sandbox was killed"), not ended as a malformed HTTP/1.1 response.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_by_a_kill_resets_the_clients_connection() {
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-reset-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let daemon = dsh_sandboxd::Daemon::start(config(&state)).await.unwrap();
    let c = Client::new(&daemon.url(), daemon.api_key());
    let sandbox = c.create(json!({"templateID": "base"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap();
    let token = sandbox["envdAccessToken"].as_str().unwrap();

    let payload = br#"{"process":{"cmd":"/bin/sh","args":["-c","echo started; sleep 60"]}}"#;
    let mut body = vec![0u8];
    body.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_be_bytes());
    body.extend_from_slice(payload);
    let head = format!(
        "POST /process.Process/Start HTTP/1.1\r\nHost: {}\r\nE2b-Sandbox-Id: {id}\r\nX-Access-Token: {token}\r\nContent-Type: application/connect+json\r\nConnect-Protocol-Version: 1\r\nContent-Length: {}\r\n\r\n",
        daemon.addr(),
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(daemon.addr()).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body).await.unwrap();
    // Read until the command's output has come through: the stream is under way.
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    while !seen.windows(b"c3RhcnRlZA".len()).any(|w| w == b"c3RhcnRlZA") {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("the command's output")
            .unwrap();
        assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&chunk[..n]);
    }
    assert!(seen.starts_with(b"HTTP/1.1 200 OK\r\n"), "{}", String::from_utf8_lossy(&seen));

    let killed = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(killed.status, StatusCode::NO_CONTENT);
    let end = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) => return Ok(()),
                Ok(_) => continue,
                Err(e) => return Err(e.kind()),
            }
        }
    })
    .await
    .expect("the stream ends");
    assert_eq!(end, Err(std::io::ErrorKind::ConnectionReset));
    daemon.shutdown().await.unwrap();
}
