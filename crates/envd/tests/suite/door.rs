//! envd's door: stalled connections are closed after the header timeout, past the cap a
//! client gets a 503, and a silent response stream outlives the header timeout.

use std::time::{Duration, Instant};

use dsh_envd::EnvdConfig;
use dsh_proto::process::{StartRequest, StartResponse, process_event};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::{self, bash};

const HEAD_TIMEOUT: Duration = Duration::from_millis(300);

fn door(max_connections: usize) -> EnvdConfig {
    EnvdConfig {
        default_user: "user".into(),
        door: Some(dsh_http::Limits {
            max_connections,
            header_read_timeout: HEAD_TIMEOUT,
            ..dsh_http::Limits::default()
        }),
        ..EnvdConfig::default()
    }
}

fn addr(envd: &common::TestEnvd) -> String {
    envd.base.trim_start_matches("http://").to_owned()
}

#[tokio::test]
async fn past_the_cap_a_503_and_stalled_connections_are_closed_after_the_header_timeout() {
    let envd = common::start_with(door(4)).await;
    let mut stalled = Vec::new();
    for _ in 0..4 {
        stalled.push(TcpStream::connect(addr(&envd)).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let refused = envd.http.get(envd.url("/health")).send().await.unwrap();
    assert_eq!(refused.status().as_u16(), 503);
    assert_eq!(
        refused.text().await.unwrap(),
        r#"{"code":503,"message":"too many connections: this server takes at most 4 at once; retry shortly"}"#
    );
    let started = Instant::now();
    for stream in &mut stalled {
        let mut buf = [0u8; 8];
        let read = tokio::time::timeout(Duration::from_secs(3), stream.read(&mut buf)).await;
        assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "{read:?}");
    }
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    // A fresh client (reqwest's pooled connection was the refused one).
    let health = reqwest::Client::new().get(envd.url("/health")).send().await.unwrap();
    assert_eq!(health.status().as_u16(), 204);
}

#[tokio::test]
async fn a_silent_command_stream_outlives_the_header_timeout() {
    let envd = common::start_with(door(8)).await;
    let request = StartRequest {
        process: Some(bash("sleep 1; echo done")),
        stdin: Some(false),
        ..Default::default()
    };
    let outcome = envd.stream::<_, StartResponse>("/process.Process/Start", &request, &[]).await;
    assert!(outcome.end.error.is_none(), "{:?}", outcome.end.error);
    let stdout: Vec<u8> = outcome
        .messages
        .iter()
        .filter_map(|m| match m.event.as_ref()?.event.as_ref()? {
            process_event::Event::Data(data) => match data.output.as_ref()? {
                process_event::data_event::Output::Stdout(bytes) => Some(bytes.to_vec()),
                _ => None,
            },
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(stdout, b"done\n");
}

#[test]
fn the_default_door_takes_half_the_descriptors_between_64_and_4096() {
    let limits = dsh_envd::door_limits();
    let descriptors = dsh_http::open_files_limit();
    assert_eq!(limits.max_connections as u64, (descriptors / 2).clamp(64, 4096));
    assert_eq!(limits.header_read_timeout, Duration::from_secs(30));
}

#[tokio::test]
async fn a_request_head_sent_in_pieces_within_the_timeout_is_served() {
    let envd = common::start_with(door(8)).await;
    let mut stream = TcpStream::connect(addr(&envd)).await.unwrap();
    for piece in ["GET /health HTTP/1.1\r\n", "Host: x\r\n", "Connection: close\r\n\r\n"] {
        stream.write_all(piece.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 204 No Content\r\n"), "{answer}");
}
