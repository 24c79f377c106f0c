//! The terminal tools over the local backend, two owners sharing one engine.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use dsh_core::host::Host;
use dsh_pty::engine::{EngineConfig, TerminalEngine};
use dsh_tools::terminal::register_terminal_tools;
use dsh_tools::{ToolContext, ToolError, ToolRegistry};
use serde_json::json;

fn registry(engine: &Arc<TerminalEngine>, owner: &str, cwd: &std::path::Path) -> ToolRegistry {
    let local = Arc::new(Host::new());
    let ctx = ToolContext::new(local.clone(), local, cwd, BTreeMap::new());
    let mut registry = ToolRegistry::new(ctx);
    register_terminal_tools(&mut registry, Arc::clone(engine), owner);
    registry
}

#[tokio::test]
async fn terminal_tools_open_send_read_signal_list_and_close() {
    let dir = tempfile::tempdir().unwrap();
    let env = BTreeMap::from([("PATH".to_owned(), "/usr/bin:/bin".to_owned())]);
    let engine =
        Arc::new(TerminalEngine::new(Arc::new(Host::new()), EngineConfig::new(dir.path(), env)));
    let alice = registry(&engine, "alice", dir.path());
    let bob = registry(&engine, "bob", dir.path());

    let opened =
        alice.call("terminal_open", json!({"type": "shell", "name": "main"})).await.unwrap();
    assert_eq!(opened.value["sessionId"], "pty-1");
    assert_eq!(opened.value["motd"], "$");
    let sent = alice
        .call("terminal_send", json!({"sessionId": "pty-1", "text": "echo PTY-你好"}))
        .await
        .unwrap();
    assert_eq!(sent.value["waitReason"], "stdin_read");
    assert_eq!(sent.value["viewport"], "$ echo PTY-你好\nPTY-你好\n$");
    assert_eq!(sent.value["sessionStatus"], "running");
    let read = alice.call("terminal_read", json!({"sessionId": "pty-1"})).await.unwrap();
    assert_eq!(read.value["text"], "$ echo PTY-你好\nPTY-你好\n$ ");
    assert_eq!(
        (read.value["lineBegin"].as_u64(), read.value["lineEnd"].as_u64()),
        (Some(0), Some(3))
    );

    // `job-42` comes from the job's own `sh`, after the shell's fork exec'd it: a SIGINT
    // after that line reaches the job.
    let job = "sh -c 'echo job-$((6*7)); exec sleep 30'";
    let slow = alice
        .call("terminal_send", json!({"sessionId": "pty-1", "text": job, "timeoutMs": 300}))
        .await
        .unwrap();
    assert_eq!(slow.value["waitReason"], "timeout");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let read = alice.call("terminal_read", json!({"sessionId": "pty-1"})).await.unwrap();
        if read.value["text"].as_str().is_some_and(|t| t.contains("\njob-42")) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the job never started: {read:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let signalled = alice
        .call("terminal_signal", json!({"sessionId": "pty-1", "signal": "SIGINT"}))
        .await
        .unwrap();
    assert_eq!(signalled.value["delivered"], true);
    assert_eq!(signalled.value["promptReturned"], true);
    assert!(signalled.value["targetPgid"].as_u64().unwrap() > 0);
    assert!(signalled.text.ends_with("; the prompt is back"), "{}", signalled.text);
    let back = alice
        .call("terminal_send", json!({"sessionId": "pty-1", "text": "echo back"}))
        .await
        .unwrap();
    assert_eq!(back.value["waitReason"], "stdin_read");

    let listed = alice.call("terminal_list", json!({})).await.unwrap();
    assert_eq!(listed.value, json!([{"sessionId": "pty-1", "name": "main", "status": "running"}]));
    assert_eq!(bob.call("terminal_list", json!({})).await.unwrap().value, json!([]));
    let err =
        bob.call("terminal_send", json!({"sessionId": "pty-1", "text": "echo"})).await.unwrap_err();
    assert!(
        matches!(&err, ToolError::InvalidArguments { field, message, .. } if field == "sessionId" && message == "no terminal session pty-1 for this agent (see terminal_list)"),
        "{err}"
    );
    let err = alice
        .call("terminal_signal", json!({"sessionId": "pty-1", "signal": "SIGFOO"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::InvalidArguments { field, .. } if field == "signal"),
        "{err}"
    );
    let err = alice
        .call("terminal_signal", json!({"sessionId": "pty-1", "signal": "SIGKILL"}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("use terminal_close"), "{err}");

    let closed = alice.call("terminal_close", json!({"sessionId": "pty-1"})).await.unwrap();
    assert_eq!(closed.value["status"], "closed");
    assert_eq!(alice.call("terminal_list", json!({})).await.unwrap().value, json!([]));
    engine.dispose().await;
}
