//! A deliberately lying envd (a fake, named as such): faults a real envd never produces
//! on demand, to prove the client turns them into typed errors with bounded memory.

use axum::Router;
use axum::response::IntoResponse;
use axum::routing::post;
use dsh_e2b::{EnvdClient, EnvdTarget, Error, StartOptions};

async fn lying_peer(body: &'static [u8], content_type: &'static str) -> String {
    let app = Router::new().route(
        "/process.Process/Start",
        post(move || async move { ([("content-type", content_type)], body).into_response() }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

async fn start_against(url: &str) -> Error {
    let client = EnvdClient::new(dsh_e2b::http_client().unwrap(), EnvdTarget::direct(url), None);
    let options = StartOptions { cmd: "true".into(), ..StartOptions::default() };
    match client.start(options).await {
        Ok(stream) => stream.wait().await.unwrap_err(),
        Err(err) => err,
    }
}

#[tokio::test]
async fn missing_end_of_stream_is_a_protocol_error() {
    // A start event, then the body just ends.
    const BODY: &[u8] = b"\x00\x00\x00\x00\x06\x0a\x04\x0a\x02\x08\x07";
    let url = lying_peer(BODY, "application/connect+proto").await;
    let err = start_against(&url).await;
    assert!(
        matches!(&err, Error::Protocol(m) if m == "stream ended without an end-of-stream message"),
        "{err}"
    );
}

#[tokio::test]
async fn an_oversized_envelope_is_refused_from_its_header() {
    // Claims a 4 GiB message; the client must refuse without waiting for or buffering it.
    const BODY: &[u8] = b"\x00\xff\xff\xff\xff";
    let url = lying_peer(BODY, "application/connect+proto").await;
    let err = start_against(&url).await;
    assert!(matches!(&err, Error::Protocol(m) if m.contains("over the")), "{err}");
}

#[tokio::test]
async fn garbage_payloads_and_wrong_content_types_are_protocol_errors() {
    const GARBAGE: &[u8] = b"\x00\x00\x00\x00\x03\xff\xff\xff\x02\x00\x00\x00\x02{}";
    let url = lying_peer(GARBAGE, "application/connect+proto").await;
    let err = start_against(&url).await;
    assert!(
        matches!(&err, Error::Protocol(m) if m.starts_with("undecodable stream message")),
        "{err}"
    );

    let url = lying_peer(b"<html>hello</html>", "text/html").await;
    let err = start_against(&url).await;
    assert!(
        matches!(&err, Error::Protocol(m) if m == "stream response has content type \"text/html\""),
        "{err}"
    );

    // A start event followed by an end-of-stream whose payload is not JSON.
    const BAD_END: &[u8] = b"\x00\x00\x00\x00\x06\x0a\x04\x0a\x02\x08\x07\x02\x00\x00\x00\x03{no";
    let url = lying_peer(BAD_END, "application/connect+proto").await;
    let err = start_against(&url).await;
    assert!(
        matches!(&err, Error::Protocol(m) if m.starts_with("malformed end-of-stream message")),
        "{err}"
    );
}
