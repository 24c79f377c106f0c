//! The limits, provoked with real sockets: a stalled client, a slow one, a flood past
//! the cap, and a handler that never finishes at shutdown.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ConnectInfo;
use axum::routing::get;
use dsh_http::{Limits, refusal_body};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const HEAD_TIMEOUT: Duration = Duration::from_millis(400);

fn limits(max_connections: usize) -> Limits {
    Limits {
        max_connections,
        header_read_timeout: HEAD_TIMEOUT,
        http2_keep_alive: Duration::from_secs(5),
        shutdown_grace: Duration::from_millis(300),
    }
}

fn router() -> Router {
    Router::new()
        .route(
            "/hello",
            get(|ConnectInfo(peer): ConnectInfo<String>| async move { format!("hello {peer}") }),
        )
        .route("/forever", get(std::future::pending::<String>))
}

struct Server {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn start(limits: Limits) -> Server {
    let listener = dsh_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(dsh_http::serve(
        listener,
        router(),
        limits,
        |stream: &TcpStream| format!("from {}", stream.peer_addr().unwrap().ip()),
        async move {
            let _ = stopped.await;
        },
    ));
    Server { addr, stop: Some(stop), task }
}

/// Sends one HTTP/1.1 request and reads the whole answer (the server closes).
async fn request(addr: SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut answer))
        .await
        .unwrap()
        .unwrap();
    answer
}

/// Waits for the server to close `stream`; returns how long that took.
async fn closed_after(mut stream: TcpStream) -> Duration {
    let started = Instant::now();
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "not closed: {read:?}");
    started.elapsed()
}

#[tokio::test]
async fn requests_are_served_with_the_callers_connect_info() {
    let server = start(limits(8)).await;
    let answer = request(server.addr, "/hello").await;
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\nhello from 127.0.0.1"), "{answer}");
}

#[tokio::test]
async fn a_stalled_client_and_a_slow_head_are_closed_after_the_header_timeout() {
    let server = start(limits(8)).await;
    let silent = TcpStream::connect(server.addr).await.unwrap();
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(b"GET /hello HTTP/1.1\r\nHost: t\r\n").await.unwrap();
    let (silent, slow) = tokio::join!(closed_after(silent), closed_after(slow));
    for waited in [silent, slow] {
        assert!(waited >= HEAD_TIMEOUT - Duration::from_millis(100), "{waited:?}");
        assert!(waited < HEAD_TIMEOUT * 4, "{waited:?}");
    }
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_header_timeout() {
    let server = start(limits(8)).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(b"GET /hello HTTP/1.1\r\nHost: t\r\n\r\n").await.unwrap();
    let mut buf = vec![0u8; 1024];
    let n = stream.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).ends_with("hello from 127.0.0.1"));
    let waited = closed_after(stream).await;
    assert!(waited < HEAD_TIMEOUT * 4, "{waited:?}");
}

#[tokio::test]
async fn past_the_cap_a_connection_gets_a_503_and_a_freed_slot_serves_again() {
    let server = start(limits(3)).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(server.addr).await.unwrap());
    }
    // The three are accepted before the fourth (one listener, in order).
    tokio::time::sleep(Duration::from_millis(50)).await;
    let refused = request(server.addr, "/hello").await;
    let body = refusal_body(3);
    assert_eq!(
        refused,
        format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    );
    assert_eq!(
        body,
        r#"{"code":503,"message":"too many connections: this server takes at most 3 at once; retry shortly"}"#
    );
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(request(server.addr, "/hello").await.ends_with("hello from 127.0.0.1"));
}

#[tokio::test]
async fn shutdown_waits_for_the_grace_then_aborts_what_is_still_open() {
    let mut server = start(limits(8)).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(b"GET /forever HTTP/1.1\r\nHost: t\r\n\r\n").await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = Instant::now();
    let _ = server.stop.take().unwrap().send(());
    tokio::time::timeout(Duration::from_secs(5), &mut server.task).await.unwrap().unwrap().unwrap();
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(250) && took < Duration::from_secs(2), "{took:?}");
    assert!(closed_after(stream).await < Duration::from_secs(1));
    assert!(TcpStream::connect(server.addr).await.is_err(), "still listening");
}

#[tokio::test]
async fn shutdown_closes_a_connection_that_sent_nothing_yet_at_once() {
    let mut server = start(Limits {
        header_read_timeout: Duration::from_secs(10),
        shutdown_grace: Duration::from_secs(3),
        ..limits(8)
    })
    .await;
    // What a client pool opens ahead of need: connected, not a byte sent.
    let silent = TcpStream::connect(server.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = Instant::now();
    let _ = server.stop.take().unwrap().send(());
    tokio::time::timeout(Duration::from_secs(5), &mut server.task).await.unwrap().unwrap().unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(1), "shutdown waited {took:?} for a silent connection");
    assert!(closed_after(silent).await < Duration::from_secs(1));
}

#[test]
fn the_soft_descriptor_limit_is_raised_to_the_hard_one() {
    let raised = dsh_http::raise_open_files_limit().unwrap();
    assert_eq!(raised, dsh_http::open_files_limit());
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the rlimit it is given.
    assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) }, 0);
    assert_eq!(limit.rlim_cur, limit.rlim_max);
}
