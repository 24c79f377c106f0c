//! envd's caps on processes, terminals and polling watchers: past each, a typed
//! `resource_exhausted` naming the cap; room frees as they end.

use dsh_envd::{Caps, EnvdConfig};
use dsh_proto::connect::Code;
use dsh_proto::filesystem::{CreateWatcherRequest, CreateWatcherResponse};
use dsh_proto::process::*;

use crate::common::{self, bash};

fn capped() -> EnvdConfig {
    EnvdConfig {
        default_user: "user".into(),
        caps: Caps { processes: 3, terminals: 1, watchers: 2 },
        ..EnvdConfig::default()
    }
}

fn start(config: ProcessConfig, pty: bool) -> StartRequest {
    StartRequest {
        process: Some(config),
        pty: pty.then_some(Pty { size: Some(pty::Size { cols: 80, rows: 24 }) }),
        stdin: Some(false),
        ..Default::default()
    }
}

#[tokio::test]
async fn past_a_cap_a_request_is_resource_exhausted_and_room_frees_as_they_end() {
    let envd = common::start_with(capped()).await;
    // One terminal and two plain processes, held running.
    let mut held =
        vec![envd.open_stream("/process.Process/Start", &start(bash("sleep 30"), true), &[]).await];
    let refused = envd
        .stream::<_, StartResponse>("/process.Process/Start", &start(bash("true"), true), &[])
        .await;
    let error = refused.end.error.expect("a second terminal was started");
    assert_eq!(error.code, Code::ResourceExhausted);
    assert_eq!(
        error.message,
        "1 terminals (PTY processes) are open, the most envd runs at once; close some first"
    );
    for _ in 0..2 {
        held.push(
            envd.open_stream("/process.Process/Start", &start(bash("sleep 30"), false), &[]).await,
        );
    }
    let mut pids = Vec::new();
    for stream in &mut held {
        let first: StartResponse = stream.next().await.unwrap();
        let Some(process_event::Event::Start(started)) = first.event.and_then(|e| e.event) else {
            panic!("no start event");
        };
        pids.push(started.pid);
    }
    let refused = envd
        .stream::<_, StartResponse>("/process.Process/Start", &start(bash("true"), false), &[])
        .await;
    let error = refused.end.error.expect("a fourth process was started");
    assert_eq!(error.code, Code::ResourceExhausted);
    assert_eq!(
        error.message,
        "3 processes started through envd are running, the most it runs at once; wait for some to end or kill them"
    );
    // One ends: there is room again.
    let kill = SendSignalRequest {
        process: Some(ProcessSelector { selector: Some(process_selector::Selector::Pid(pids[1])) }),
        signal: Signal::Sigkill as i32,
        ..Default::default()
    };
    envd.unary::<_, SendSignalResponse>("/process.Process/SendSignal", &kill).await.unwrap();
    let ended = held.remove(1);
    drop(ended);
    let mut ran = None;
    for _ in 0..50 {
        let outcome = envd
            .stream::<_, StartResponse>(
                "/process.Process/Start",
                &start(bash("echo room"), false),
                &[],
            )
            .await;
        if outcome.end.error.is_none() {
            ran = Some(outcome);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(ran.is_some(), "no room after a process ended");

    // Polling watchers.
    let dir = envd.home.to_string_lossy().into_owned();
    let watch = CreateWatcherRequest { path: dir, recursive: false, ..Default::default() };
    for _ in 0..2 {
        envd.unary::<_, CreateWatcherResponse>("/filesystem.Filesystem/CreateWatcher", &watch)
            .await
            .unwrap();
    }
    let error = envd
        .unary::<_, CreateWatcherResponse>("/filesystem.Filesystem/CreateWatcher", &watch)
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::ResourceExhausted);
    assert_eq!(
        error.message,
        "2 watchers are open, the most envd keeps at once; remove some first"
    );
}
