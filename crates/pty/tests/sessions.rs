//! Terminal sessions on the local backend: real bash on real PTYs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dsh_core::{Signal, TerminalSize, host::Host};
use dsh_pty::engine::{EngineConfig, EngineError, TerminalEngine};
use dsh_pty::session::{SessionError, WaitReason};

mod common;
use common::{JOB, job_announced};

fn engine_with(configure: impl FnOnce(&mut EngineConfig)) -> TerminalEngine {
    let mut env = BTreeMap::new();
    env.insert("PATH".to_owned(), "/usr/local/bin:/usr/bin:/bin".to_owned());
    env.insert("HOME".to_owned(), std::env::temp_dir().display().to_string());
    let mut config = EngineConfig::new(std::env::temp_dir(), env);
    configure(&mut config);
    TerminalEngine::new(Arc::new(Host::new()), config)
}

fn engine() -> TerminalEngine {
    engine_with(|_| {})
}

const T: Duration = Duration::from_secs(10);

#[tokio::test]
async fn echo_returns_stdin_read_with_exact_multibyte_text() {
    let engine = engine();
    let opened = engine.open("agent-a", None, None).await.unwrap();
    assert_eq!(opened.session_id, "pty-1");
    assert_eq!(opened.motd, "$");
    let sent = engine.send("agent-a", "pty-1", "echo PTY-你好", true, T).await.unwrap();
    assert_eq!(sent.wait_reason, WaitReason::StdinRead);
    assert_eq!(sent.viewport, "$ echo PTY-你好\nPTY-你好\n$");
    assert_eq!(sent.output, "$ echo PTY-你好\nPTY-你好\n$ ");
    assert_eq!(sent.last_status, Some(0));
    let read = engine.read("agent-a", "pty-1", 0, 500).unwrap();
    assert_eq!(read.text, "$ echo PTY-你好\nPTY-你好\n$ ");
    let failed = engine.send("agent-a", "pty-1", "false", true, T).await.unwrap();
    assert_eq!((failed.wait_reason, failed.last_status), (WaitReason::StdinRead, Some(1)));
    engine.dispose().await;
}

#[tokio::test]
async fn sigint_reaches_the_foreground_job_and_the_prompt_returns() {
    let engine = engine();
    let id = engine.open("a", None, None).await.unwrap().session_id;
    let long = engine.send("a", &id, JOB, true, Duration::from_millis(500)).await.unwrap();
    assert_eq!(long.wait_reason, WaitReason::Timeout);
    assert!(job_announced(&engine, "a", &id).await);
    let began = Instant::now();
    let signalled = engine.signal("a", &id, Signal::Int).await.unwrap();
    assert!(signalled.delivered && signalled.prompt_returned, "{signalled:?}");
    let sessions = engine.list("a");
    assert_ne!(signalled.target_pgid, 0);
    let back = engine.send("a", &id, "echo back", true, T).await.unwrap();
    assert_eq!(back.wait_reason, WaitReason::StdinRead);
    assert!(began.elapsed() < Duration::from_secs(2), "{:?}", began.elapsed());
    assert!(back.output.ends_with("back\n$ "), "{:?}", back.output);
    assert!(sessions[0].running);
    // With nothing in the foreground, SIGKILL would hit the shell itself.
    assert!(matches!(
        engine.signal("a", &id, Signal::Kill).await,
        Err(EngineError::ShellKillRefused)
    ));
    engine.dispose().await;
}

#[tokio::test]
async fn a_python_repl_is_driven_by_idle_detection() {
    let engine = engine_with(|c| c.readiness.idle = Duration::from_millis(1500));
    let id = engine.open("a", None, None).await.unwrap().session_id;
    let repl = engine.send("a", &id, "python3 -q", true, T).await.unwrap();
    assert_eq!(repl.wait_reason, WaitReason::InferredIdle);
    assert!(repl.viewport.ends_with(">>>"), "{:?}", repl.viewport);
    let two = engine.send("a", &id, "1+1", true, T).await.unwrap();
    assert_eq!(two.wait_reason, WaitReason::InferredIdle);
    assert!(two.viewport.ends_with(">>> 1+1\n2\n>>>"), "{:?}", two.viewport);
    let exited = engine.send("a", &id, "exit()", true, T).await.unwrap();
    assert_eq!(exited.wait_reason, WaitReason::StdinRead);
    engine.dispose().await;
}

#[tokio::test]
async fn full_screen_programs_use_the_alternate_screen_and_quit_cleanly() {
    let engine = engine_with(|c| c.readiness.idle = Duration::from_millis(1500));
    let id = engine.open("a", None, None).await.unwrap().session_id;
    let less = engine.send("a", &id, "printf 'first\\nsecond\\n' | less", true, T).await.unwrap();
    assert_eq!(less.wait_reason, WaitReason::InferredIdle);
    assert!(less.viewport.starts_with("first\nsecond"), "{:?}", less.viewport);
    let quit = engine.send("a", &id, "q", false, T).await.unwrap();
    assert_eq!(quit.wait_reason, WaitReason::StdinRead);
    assert!(quit.viewport.starts_with("$ printf"), "{:?}", quit.viewport);
    engine.dispose().await;
}

#[tokio::test]
async fn sessions_belong_to_one_owner() {
    let engine = engine();
    let id = engine.open("alice", Some("build".into()), None).await.unwrap().session_id;
    for result in [
        engine.send("bob", &id, "echo hi", true, T).await.map(|_| ()),
        engine.read("bob", &id, 0, 10).map(|_| ()),
        engine.signal("bob", &id, Signal::Int).await.map(|_| ()),
        engine.close("bob", &id).await.map(|_| ()),
    ] {
        assert!(
            matches!(result, Err(EngineError::UnknownSession(ref s)) if *s == id),
            "{result:?}"
        );
    }
    assert!(engine.list("bob").is_empty());
    let mine = engine.list("alice");
    assert_eq!((mine.len(), mine[0].name.as_deref()), (1, Some("build")));
    let closed = engine.close_owner("alice").await;
    assert_eq!(closed.len(), 1);
    assert!(engine.list("alice").is_empty());
}

#[tokio::test]
async fn one_send_at_a_time_and_exit_ends_the_session() {
    let engine = Arc::new(engine());
    let id = engine.open("a", None, None).await.unwrap().session_id;
    let first = {
        let engine = Arc::clone(&engine);
        let id = id.clone();
        let job = "sh -c 'echo job-$((6*7)); exec sleep 0.5'; echo done";
        tokio::spawn(async move { engine.send("a", &id, job, true, T).await })
    };
    // The first send is under way once its job has printed (no guessing with a sleep).
    assert!(job_announced(&engine, "a", &id).await, "the first send never ran");
    let second = engine.send("a", &id, "echo too", true, T).await;
    assert!(
        matches!(second, Err(EngineError::Session(SessionError::Busy(ref s))) if *s == id),
        "{second:?}"
    );
    assert_eq!(first.await.unwrap().unwrap().wait_reason, WaitReason::StdinRead);
    let gone = engine.send("a", &id, "exit 3", true, T).await.unwrap();
    assert_eq!((gone.wait_reason, gone.running), (WaitReason::SessionExit, false));
    let after = engine.send("a", &id, "echo", true, T).await;
    assert!(matches!(after, Err(EngineError::Session(SessionError::Exited(_)))), "{after:?}");
    let status = engine.close("a", &id).await.unwrap();
    assert_eq!(status.code, Some(3));
}

#[tokio::test]
async fn a_failed_open_is_rolled_back() {
    let engine = engine_with(|c| {
        c.shell = vec!["/bin/sh".into(), "-c".into(), "echo broken; exit 7".into()]
    });
    let err = engine.open("a", None, None).await.unwrap_err();
    assert!(matches!(&err, EngineError::OpenFailed(m) if m.contains("exit code 7")), "{err}");
    assert!(engine.list("a").is_empty());
    let missing = engine_with(|c| c.shell = vec!["/no/such/shell".into()]);
    assert!(matches!(missing.open("a", None, None).await, Err(EngineError::OpenFailed(_))));
}

#[tokio::test]
async fn a_shell_without_prompt_markers_is_still_usable_through_idle() {
    let engine = engine_with(|c| {
        c.shell = vec!["/bin/sh".into(), "-i".into()];
        c.open_timeout = Duration::from_millis(500);
        c.readiness.idle = Duration::from_millis(1500);
    });
    let id = engine.open("a", None, None).await.unwrap().session_id;
    let sent = engine.send("a", &id, "echo plain", true, T).await.unwrap();
    assert_eq!(sent.wait_reason, WaitReason::InferredIdle);
    assert!(sent.output.contains("plain\n"), "{:?}", sent.output);
    engine.dispose().await;
}

#[tokio::test]
async fn garbage_bytes_are_replaced_and_floods_stay_bounded() {
    let engine = engine_with(|c| {
        c.caps = dsh_pty::scrollback::Caps { max_lines: 1000, max_bytes: 256 * 1024 }
    });
    let id = engine.open("a", None, None).await.unwrap().session_id;
    let garbage = engine.send("a", &id, r"printf 'A\377\376B\n'", true, T).await.unwrap();
    assert!(garbage.output.contains("A\u{fffd}\u{fffd}B\n"), "{:?}", garbage.output);
    let flood = engine
        .send("a", &id, "head -c 30000000 /dev/zero | base64 -w 76", true, Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(flood.wait_reason, WaitReason::StdinRead);
    assert!(flood.truncated);
    let window = engine.read("a", &id, 0, 100_000).unwrap();
    assert!(window.total_lines > 500_000, "{}", window.total_lines);
    assert!(window.text.len() <= 256 * 1024, "{}", window.text.len());
    engine.dispose().await;
}

#[tokio::test]
async fn resize_reaches_the_program() {
    let engine = engine();
    let id = engine.open("a", None, None).await.unwrap().session_id;
    engine.resize("a", &id, TerminalSize { rows: 30, cols: 100 }).await.unwrap();
    let sent = engine.send("a", &id, "stty size", true, T).await.unwrap();
    assert!(sent.output.contains("\n30 100\n"), "{:?}", sent.output);
    engine.dispose().await;
}
