//! A deliberately broken server (tests/fixtures/broken_lsp_server.py): crashes, hangs,
//! garbage and oversized frames, floods; and the server-to-client requests.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dsh_lsp::{LspConfig, LspError, LspOutput, Operation, ServerConfig, framing::FrameError};

use super::common::{Backend, Harness, hover_text};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/broken_lsp_server.py")
}

/// A harness whose only server is the broken one, in `mode`, for `.fake` files.
async fn broken(
    backend: Backend,
    mode: &str,
    tune: impl FnOnce(&mut LspConfig),
) -> (Harness, PathBuf, tempfile::TempDir) {
    let state_dir = tempfile::tempdir().unwrap();
    let state = state_dir.path().to_path_buf();
    // The sandbox user must be able to record its starts.
    std::fs::set_permissions(&state, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let command = vec![
        "python3".to_owned(),
        script().to_string_lossy().into_owned(),
        mode.to_owned(),
        state.to_string_lossy().into_owned(),
    ];
    let h = Harness::new(backend, |config| {
        config.servers = vec![ServerConfig {
            name: format!("broken-{mode}"),
            command,
            extensions: vec!["fake".into()],
            root_markers: vec![],
            initialization_options: serde_json::json!({}),
            settings: serde_json::json!({ "fake": { "answer": 42 } }),
            install_hint: "it is a test fixture".into(),
            install: vec![],
        }];
        config.request_timeout = Duration::from_secs(2);
        config.cancel_grace = Duration::from_millis(500);
        config.kill_grace = Duration::from_millis(500);
        tune(config);
    })
    .await;
    let file = h.write("doc.fake", "hello 🎉\n").await;
    (h, file, state_dir)
}

fn starts(state: &Path) -> usize {
    std::fs::read_to_string(state.join("starts")).map(|s| s.len()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_restarts_the_server_once_and_the_request_is_answered() {
    for backend in [Backend::Host, Backend::Sandbox] {
        let (h, file, state) = broken(backend, "crash", |_| {}).await;
        let answer = h.ask(Operation::Hover, &file, 1, 1).await;
        assert_eq!(hover_text(&answer), "fake hover from start 2");
        assert_eq!(starts(state.path()), 2);
        // The restarted server is reused.
        h.ask(Operation::Hover, &file, 1, 1).await;
        assert_eq!(starts(state.path()), 2);
        h.engine.dispose().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_crashes_again_after_its_restart_is_reported_with_its_stderr() {
    let (h, file, state) = broken(Backend::Host, "crash-always", |_| {}).await;
    let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
    assert!(matches!(error, LspError::ServerExited { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("exit code 3"), "{message}");
    assert!(message.contains("crashing on purpose"), "{message}");
    assert_eq!(starts(state.path()), 2, "restarted exactly once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hang_is_cancelled_then_a_typed_timeout_and_the_server_restarts() {
    for backend in [Backend::Host, Backend::Sandbox] {
        let (h, file, state) = broken(backend, "hang", |_| {}).await;
        let started = Instant::now();
        let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
        assert!(
            matches!(&error, LspError::Timeout { method, restarted: true, .. } if method == "textDocument/hover"),
            "{error:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(8), "{:?}", started.elapsed());
        // The hung server was stopped; the next request gets a fresh one.
        let answer = h.ask(Operation::Hover, &file, 1, 1).await;
        assert_eq!(hover_text(&answer), "fake hover from start 2");
        assert_eq!(starts(state.path()), 2);
        h.engine.dispose().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hang_that_honours_the_cancellation_keeps_the_server() {
    // A generous grace: the fixture acknowledging the cancellation late would look like
    // a server that ignores it.
    let (h, file, state) =
        broken(Backend::Host, "hang-ack", |c| c.cancel_grace = Duration::from_secs(3)).await;
    let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
    assert!(matches!(error, LspError::Timeout { restarted: false, .. }), "{error:?}");
    let answer = h.ask(Operation::Hover, &file, 1, 1).await;
    assert_eq!(hover_text(&answer), "fake hover from start 1");
    assert_eq!(starts(state.path()), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_on_stdout_is_a_typed_error_then_the_server_restarts() {
    let (h, file, state) = broken(Backend::Host, "garbage", |_| {}).await;
    let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
    assert!(
        matches!(&error, LspError::Protocol { source: FrameError::Garbage(text), .. } if text.contains("not an LSP frame")),
        "{error:?}"
    );
    let answer = h.ask(Operation::Hover, &file, 1, 1).await;
    assert_eq!(hover_text(&answer), "fake hover from start 2");
    assert_eq!(starts(state.path()), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_frame_is_refused_before_it_is_buffered() {
    for backend in [Backend::Host, Backend::Sandbox] {
        let (h, file, state) = broken(backend, "oversize", |_| {}).await;
        let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
        assert!(
            matches!(
                error,
                LspError::Protocol { source: FrameError::TooLarge { size: 1_000_000_000, .. }, .. }
            ),
            "{error:?}"
        );
        let answer = h.ask(Operation::Hover, &file, 1, 1).await;
        assert_eq!(hover_text(&answer), "fake hover from start 2");
        assert_eq!(starts(state.path()), 2);
        h.engine.dispose().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_beyond_the_stdout_cap_is_a_typed_overflow_then_a_restart() {
    // A 4 KiB stdout cap: the 256 KiB answer cannot be read whole, bytes are dropped.
    let (h, file, state) = broken(Backend::Host, "flood", |c| c.stdout_cap_bytes = 4096).await;
    let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
    assert!(matches!(error, LspError::OutputOverflow { skipped, .. } if skipped > 0), "{error:?}");
    let answer = h.ask(Operation::Hover, &file, 1, 1).await;
    assert_eq!(hover_text(&answer), "fake hover from start 2");
    assert_eq!(starts(state.path()), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_to_client_requests_are_answered() {
    let (h, file, _state) = broken(Backend::Host, "reverse", |_| {}).await;
    let answer = h.ask(Operation::Hover, &file, 1, 1).await;
    let answers: serde_json::Value = serde_json::from_str(&hover_text(&answer)).unwrap();
    assert_eq!(answers["workspace/configuration"], serde_json::json!([42, null]));
    assert_eq!(answers["window/workDoneProgress/create"], serde_json::Value::Null);
    assert_eq!(answers["client/registerCapability"], serde_json::Value::Null);
    assert_eq!(answers["workspace/applyEdit"]["applied"], serde_json::json!(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_sends_the_host_pid_only_in_the_same_process_namespace() {
    // The fake server echoes processId in its capabilities reply; ask through hover of
    // a fresh engine per setting by reading what the engine sent via the server's state.
    for (backend, expect_pid) in [(Backend::Host, true), (Backend::Sandbox, false)] {
        let (h, file, state) = broken(backend, "pid", |_| {}).await;
        h.ask(Operation::Hover, &file, 1, 1).await;
        let sent = std::fs::read_to_string(state.path().join("process-id")).unwrap();
        if expect_pid {
            assert_eq!(sent, std::process::id().to_string());
        } else {
            assert_eq!(sent, "null");
        }
        h.engine.dispose().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispose_shuts_servers_down_and_later_requests_are_refused() {
    let (h, file, _state) = broken(Backend::Host, "pid", |_| {}).await;
    h.ask(Operation::Hover, &file, 1, 1).await;
    let running = h.engine.running().await;
    assert_eq!(running.len(), 1);
    let pid = running[0].2;
    h.engine.dispose().await;
    // The server's whole process group is gone (shutdown + exit, then TERM/KILL).
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists() || {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            stat.contains(") Z ")
        }
    );
    let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
    assert!(matches!(error, LspError::Disposed), "{error:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pull_diagnostics_follow_the_current_text() {
    let (h, file, _state) = broken(Backend::Host, "pull", |_| {}).await;
    let messages = |result: &dsh_lsp::LspResult| match &result.output {
        LspOutput::Diagnostics(items) => {
            items.iter().map(|d| (d.severity.clone(), d.message.clone())).collect::<Vec<_>>()
        }
        other => panic!("{other:?}"),
    };
    let first = h.ask(Operation::Diagnostics, &file, 1, 1).await;
    assert_eq!(messages(&first), [("warning".to_owned(), "version 1: hello 🎉".to_owned())]);
    // Unchanged: no new version.
    let same = h.ask(Operation::Diagnostics, &file, 1, 1).await;
    assert_eq!(messages(&same), messages(&first));
    h.write("doc.fake", "changed ✓\n").await;
    let changed = h.ask(Operation::Diagnostics, &file, 1, 1).await;
    assert_eq!(messages(&changed), [("warning".to_owned(), "version 2: changed ✓".to_owned())]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_server_per_project_root_reused_across_queries() {
    let (h, top, state) = broken(Backend::Host, "pid", |c| {
        c.servers[0].root_markers = vec!["project.marker".into()];
    })
    .await;
    h.write("a/project.marker", "").await;
    h.write("b/project.marker", "").await;
    let a = h.write("a/src/one.fake", "a\n").await;
    let b = h.write("b/two.fake", "b\n").await;
    for file in [&a, &b, &a, &top, &b, &top] {
        h.ask(Operation::Hover, file, 1, 1).await;
    }
    let mut roots: Vec<PathBuf> = h.engine.running().await.into_iter().map(|r| r.1).collect();
    roots.sort();
    assert_eq!(roots, [h.root.clone(), h.root.join("a"), h.root.join("b")]);
    assert_eq!(starts(state.path()), 3);
    h.engine.dispose().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_that_is_not_json_is_a_typed_error_then_the_server_restarts() {
    let (h, file, state) = broken(Backend::Host, "badjson", |_| {}).await;
    let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
    assert!(
        matches!(&error, LspError::InvalidMessage { detail, .. } if detail.contains("not JSON")),
        "{error:?}"
    );
    let answer = h.ask(Operation::Hover, &file, 1, 1).await;
    assert_eq!(hover_text(&answer), "fake hover from start 2");
    assert_eq!(starts(state.path()), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_of_the_wrong_shape_is_a_typed_error_then_the_server_restarts() {
    for (mode, prefix) in [
        ("badshape", "its answer to textDocument/hover does not fit the protocol: "),
        ("badinit", "its answer to initialize does not fit the protocol: "),
        ("badpublish", "its textDocument/publishDiagnostics does not fit the protocol: "),
    ] {
        let (h, file, state) = broken(Backend::Host, mode, |_| {}).await;
        let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
        assert!(
            matches!(&error, LspError::InvalidMessage { detail, .. } if detail.starts_with(prefix)),
            "{error:?}"
        );
        let answer = h.ask(Operation::Hover, &file, 1, 1).await;
        assert_eq!(hover_text(&answer), "fake hover from start 2");
        assert_eq!(starts(state.path()), 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_queue_on_one_server() {
    let (h, file, state) = broken(Backend::Host, "pid", |_| {}).await;
    let ask = || h.engine.request(Operation::Hover, &file, 1, 1);
    let (a, b, c, d) = tokio::join!(ask(), ask(), ask(), ask());
    for answer in [a, b, c, d] {
        assert_eq!(hover_text(&answer.unwrap()), "fake hover from start 1");
    }
    assert_eq!(starts(state.path()), 1);
}
