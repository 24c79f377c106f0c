//! A sandbox's envd SIGKILLed while a client reads a command's output stream through the
//! daemon: the client's connection is reset within a second, the daemon marks the
//! sandbox paused, a neighbour is untouched, and the sandbox resumes with its files.

use std::time::{Duration, Instant};

use base64::Engine as _;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::common::{envd_pid, error_chain, is_alive, listed, signal, within};
use crate::control::harness::{Client, Harness, wait_until};

/// Reads Connect envelopes off a streaming response; each is `(flags, message)`.
struct Envelopes {
    response: reqwest::Response,
    buffer: Vec<u8>,
}

impl Envelopes {
    async fn next(&mut self) -> Result<Option<(u8, Value)>, reqwest::Error> {
        loop {
            if self.buffer.len() >= 5 {
                let len = u32::from_be_bytes(self.buffer[1..5].try_into().unwrap()) as usize;
                if self.buffer.len() >= 5 + len {
                    let flags = self.buffer[0];
                    let message = serde_json::from_slice(&self.buffer[5..5 + len]).unwrap();
                    self.buffer.drain(..5 + len);
                    return Ok(Some((flags, message)));
                }
            }
            match self.response.chunk().await? {
                Some(chunk) => self.buffer.extend_from_slice(&chunk),
                None => return Ok(None),
            }
        }
    }
}

/// Starts a command that prints `tick <n>` every 50 ms and follows its output through
/// the daemon; returns the stream once the first line arrived.
async fn ticking(c: &Client, sandbox: &Value) -> Envelopes {
    let start = json!({"process": {"cmd": "/bin/sh", "args": ["-c",
        "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.05; done"]}});
    let payload = serde_json::to_vec(&start).unwrap();
    let mut frame = vec![0u8];
    frame.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(&payload);
    let response = within(
        "the stream's start",
        Duration::from_secs(10),
        c.envd(sandbox, Method::POST, "/process.Process/Start")
            .header("Content-Type", "application/connect+json")
            .header("Connect-Protocol-Version", "1")
            .body(frame)
            .send(),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = Envelopes { response, buffer: Vec::new() };
    let engine = &base64::engine::general_purpose::STANDARD;
    let mut first_line = String::new();
    while first_line.is_empty() {
        let (_, message) = within("the first line", Duration::from_secs(10), stream.next())
            .await
            .unwrap()
            .unwrap();
        if let Some(data) = message["event"]["data"]["stdout"].as_str() {
            first_line = String::from_utf8(engine.decode(data).unwrap()).unwrap();
        }
    }
    assert_eq!(first_line, "tick 1\n");
    stream
}

/// A pause while a client follows a command: envd cuts the stream at once, so the
/// client's connection is reset (as when the sandbox dies) right away, and the pause does
/// not wait out the daemon's stop grace (2 s) for envd to let go of the connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_under_a_followed_command_resets_it_at_once_and_skips_the_stop_grace() {
    let h = Harness::start().await;
    let c = &h.client;
    let sandbox = within("a create", Duration::from_secs(30), c.create(json!({}))).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    let mut stream = ticking(c, &sandbox).await;
    let started = Instant::now();
    let reply = within(
        "the pause",
        Duration::from_secs(10),
        // Files only: the processes stop (a pause keeping memory freezes them instead).
        c.call(Method::POST, &format!("/sandboxes/{id}/pause"), Some(json!({"memory": false}))),
    )
    .await;
    let paused = started.elapsed();
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    let err = within("the cut stream", Duration::from_secs(5), broken(&mut stream)).await;
    let cut = started.elapsed();
    assert_eq!(error_chain(&err), RESET);
    assert!(paused < Duration::from_millis(1500), "the pause took {paused:?}");
    assert!(cut < Duration::from_millis(1500), "the stream was cut after {cut:?}");
    eprintln!("pause under a followed command: {paused:?}, stream reset after {cut:?}");
}

/// What a client reading a stream gets when the sandbox side breaks: its connection
/// reset (reqwest's errors, its body timeout's among them, then hyper's, then the
/// system's).
const RESET: [&str; 4] = [
    "error decoding response body",
    "request or response body error",
    "error reading a body from connection",
    "Connection reset by peer (os error 104)",
];

/// Reads the stream on (lines may still come) until it breaks; a clean end fails.
async fn broken(stream: &mut Envelopes) -> reqwest::Error {
    loop {
        match stream.next().await {
            Ok(Some((flags, message))) => {
                assert_eq!(flags & 2, 0, "the stream ended: {message}");
                assert!(message["event"].get("end").is_none(), "the command ended: {message}");
            }
            Ok(None) => panic!("the stream ended cleanly"),
            Err(err) => return err,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envd_killed_mid_stream_resets_the_client_within_a_second_and_the_sandbox_resumes() {
    let h = Harness::start().await;
    let c = &h.client;
    let sandbox = within("a create", Duration::from_secs(30), c.create(json!({}))).await;
    let neighbour = within("a create", Duration::from_secs(30), c.create(json!({}))).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    within(
        "a write",
        Duration::from_secs(10),
        c.write_file(&sandbox, "/home/user/kept.txt", "kept"),
    )
    .await;
    let init = h.init_pid(&id);
    let envd = envd_pid(init, &id).expect("envd runs under the sandbox's init");

    // A command that prints a line every 50 ms, its output streamed through the daemon.
    let mut stream = ticking(c, &sandbox).await;

    signal(envd, libc::SIGKILL);
    let killed = Instant::now();
    // Lines already on their way may still arrive; then the connection is reset.
    let err = within("the broken stream", Duration::from_secs(5), broken(&mut stream)).await;
    let broken = killed.elapsed();
    assert_eq!(error_chain(&err), RESET);
    assert!(broken < Duration::from_secs(1), "the client learned of envd's death after {broken:?}");

    // The sandbox's init ended with its envd; the daemon marks the sandbox paused.
    wait_until("the init to end", Duration::from_secs(5), async || !is_alive(init)).await;
    let mut marked = None;
    wait_until("the sandbox to be marked paused", Duration::from_secs(5), async || {
        let reply = c.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
        let paused = reply.body["state"] == "paused";
        if paused {
            marked = Some(killed.elapsed());
        }
        paused
    })
    .await;
    let neighbour_id = neighbour["sandboxID"].as_str().unwrap().to_owned();
    let mut expected = vec![(id.clone(), "paused".to_owned()), (neighbour_id, "running".into())];
    expected.sort();
    assert_eq!(listed(c).await, expected);
    let (status, body) =
        within("a read", Duration::from_secs(10), c.read_file(&sandbox, "/x")).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"code": 502, "message": format!("sandbox {id} is paused: connect to it (or resume it) first")})
    );
    assert_eq!(
        within("the neighbour", Duration::from_secs(10), c.run(&neighbour, "echo untouched")).await,
        ("untouched\n".to_owned(), 0)
    );

    // Recoverable: it resumes with its files and runs commands.
    let reply = within(
        "a resume",
        Duration::from_secs(30),
        c.call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({}))),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    assert_eq!(
        within("a read", Duration::from_secs(10), c.read_file(&sandbox, "/home/user/kept.txt"))
            .await,
        (StatusCode::OK, "kept".to_owned())
    );
    assert_eq!(
        within("a command", Duration::from_secs(10), c.run(&sandbox, "echo back")).await,
        ("back\n".to_owned(), 0)
    );
    let init = h.init_pid(&id);
    let reply = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    h.assert_no_leftovers(&id, init);
    eprintln!(
        "envd SIGKILL mid-stream: connection reset after {broken:?}, marked paused after {:?}",
        marked.unwrap()
    );
}
