//! The control plane's door under a flood: stalled connections neither lock other
//! clients out nor stay forever, and past the cap a client gets a clear 503.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::harness::Harness;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_stalled_connections_do_not_lock_out_other_clients() {
    // The daemon raises this process's descriptor limit (it runs in it) when it starts;
    // the 2,000 client ends below count against the same limit.
    let h = Harness::start_with(|config| {
        config.http.header_read_timeout = Duration::from_secs(2);
    })
    .await;
    let addr = h.daemon().addr();
    let mut stalled = Vec::with_capacity(2000);
    for i in 0..2000 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        if i % 2 == 0 {
            // Half start a request head and never finish it.
            stream.write_all(b"POST /sandboxes HTTP/1.1\r\nHost: x\r\n").await.unwrap();
        }
        stalled.push(stream);
    }
    // Everyone else is still served: a health check, a create, a command.
    let started = Instant::now();
    assert_eq!(reqwest::get(format!("{}/health", h.daemon().url())).await.unwrap().status(), 200);
    let sandbox = h.client.create(json!({"templateID": "base"})).await;
    assert_eq!(h.client.run(&sandbox, "echo served").await, ("served\n".to_owned(), 0));
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());

    // The stalled ones are closed once the header timeout passes.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut closed = 0;
    for stream in &mut stalled {
        let mut buf = [0u8; 16];
        if let Ok(Ok(0) | Err(_)) = tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            closed += 1;
        }
    }
    assert_eq!(closed, 2000);
    let id = sandbox["sandboxID"].as_str().unwrap();
    let reply = h.client.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_connection_cap_a_client_gets_a_503_in_e2b_shape() {
    let h = Harness::start_with(|config| {
        config.http.max_connections = 8;
    })
    .await;
    let addr = h.daemon().addr();
    let mut held = Vec::new();
    for _ in 0..8 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
        let mut buf = [0u8; 256];
        let n = stream.read(&mut buf).await.unwrap();
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&buf[..n]));
        held.push(stream); // kept alive: each holds a slot
    }
    let reply = h.client.call(Method::GET, "/v2/sandboxes", None).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        reply.body,
        json!({"code": 503, "message": "too many connections: this server takes at most 8 at once; retry shortly"})
    );
    assert_eq!(reply.headers["retry-after"], "1");
    held.clear();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(h.client.call(Method::GET, "/v2/sandboxes", None).await.status, StatusCode::OK);
}
