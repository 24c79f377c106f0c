//! Bad input: each is a typed error that tells the agent what to do.

use std::time::Duration;

use dsh_core::FsError;
use dsh_lsp::{LspError, Operation, ServerConfig};

use super::common::{Backend, Harness, SYSTEM_PATH, base_env, tools_bin};

async fn python_harness(backend: Backend) -> Harness {
    let path = format!("{}:{SYSTEM_PATH}", tools_bin().display());
    Harness::new(backend, |config| {
        config.env = base_env(&path);
        config.max_file_bytes = 1024;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_outside_the_workspace_are_refused() {
    for backend in [Backend::Host, Backend::Sandbox] {
        let h = python_harness(backend).await;
        let outside = h.root.parent().unwrap().join("outside.py");
        h.fs.write_text(&outside, "x = 1\n", dsh_core::WriteExpectation::Any).await.unwrap();
        for path in [outside.clone(), h.root.join("../outside.py"), "../outside.py".into()] {
            let error = h.engine.request(Operation::Hover, &path, 1, 1).await.unwrap_err();
            assert!(matches!(error, LspError::OutsideWorkspace { .. }), "{path:?}: {error:?}");
        }
        // A symlink inside the workspace pointing out of it is outside too.
        if matches!(backend, Backend::Host) {
            std::os::unix::fs::symlink(&outside, h.root.join("link.py")).unwrap();
            let error = h
                .engine
                .request(Operation::Hover, &h.root.join("link.py"), 1, 1)
                .await
                .unwrap_err();
            assert!(matches!(error, LspError::OutsideWorkspace { .. }), "{error:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_over_the_cap_or_not_utf8_or_missing_are_refused() {
    for backend in [Backend::Host, Backend::Sandbox] {
        let h = python_harness(backend).await;
        let big = h.write("big.py", &"x = 1\n".repeat(500)).await;
        let error = h.engine.request(Operation::Hover, &big, 1, 1).await.unwrap_err();
        assert!(matches!(error, LspError::Fs(FsError::TooLarge { limit: 1024, .. })), "{error:?}");
        let missing = h.root.join("missing.py");
        let error = h.engine.request(Operation::Hover, &missing, 1, 1).await.unwrap_err();
        assert!(matches!(error, LspError::Fs(FsError::NotFound { .. })), "{error:?}");
        if matches!(backend, Backend::Host) {
            std::fs::write(h.root.join("latin1.py"), b"s = '\xe9'\n").unwrap();
            let error = h
                .engine
                .request(Operation::Hover, &h.root.join("latin1.py"), 1, 1)
                .await
                .unwrap_err();
            assert!(matches!(error, LspError::Fs(FsError::NotUtf8 { .. })), "{error:?}");
        }
        // None of this started a server.
        assert!(h.engine.running().await.is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn positions_past_the_end_are_refused_with_the_valid_range() {
    let h = python_harness(Backend::Host).await;
    let file = h.write("pos.py", "s = \"你好 🎉\"\n").await;
    // The line is 11 UTF-16 units long: column 12 is just after its end, 13 is past it.
    let error = h.engine.request(Operation::Hover, &file, 1, 13).await.unwrap_err();
    let LspError::InvalidPosition { reason, .. } = &error else { panic!("{error:?}") };
    assert!(reason.contains("11 UTF-16 code unit(s)"), "{reason}");
    let error = h.engine.request(Operation::Hover, &file, 1, 10).await.unwrap_err();
    assert!(error.to_string().contains("surrogate pair"), "{error}");
    let error = h.engine.request(Operation::GoToDefinition, &file, 9, 1).await.unwrap_err();
    assert!(error.to_string().contains("has 2 line(s)"), "{error}");
    let error = h.engine.request(Operation::Hover, &file, 0, 1).await.unwrap_err();
    assert!(matches!(error, LspError::InvalidPosition { .. }), "{error:?}");
    assert!(h.engine.running().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_extensions_name_the_configured_languages() {
    let h = python_harness(Backend::Host).await;
    let file = h.write("notes.xyz", "hello\n").await;
    let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, LspError::UnknownLanguage { .. }), "{error:?}");
    for language in ["pyright (.py, .pyi)", "typescript (.ts", "rust-analyzer (.rs)"] {
        assert!(message.contains(language), "{message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_missing_from_the_sandbox_says_how_to_install_it() {
    for backend in [Backend::Host, Backend::Sandbox] {
        // The default servers with only the system PATH: pyright is not there.
        let h = Harness::new(backend, |c| {
            c.env = base_env(SYSTEM_PATH);
            c.request_timeout = Duration::from_secs(5);
        })
        .await;
        let file = h.write("a.py", "x = 1\n").await;
        let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
        let LspError::ServerNotFound { program, .. } = &error else { panic!("{error:?}") };
        assert_eq!(program, "pyright-langserver");
        let message = error.to_string();
        assert!(message.contains("npm install -g pyright@"), "{message}");
        assert!(message.contains("scripts/install-language-servers"), "{message}");
    }
    // A configured server whose program does not exist at all.
    let h = Harness::new(Backend::Host, |c| {
        c.servers = vec![ServerConfig {
            name: "ghost".into(),
            command: vec!["ghost-langserver-that-does-not-exist".into(), "--stdio".into()],
            extensions: vec!["ghost".into()],
            root_markers: vec![],
            initialization_options: serde_json::Value::Null,
            settings: serde_json::Value::Null,
            install_hint: "install ghost with `apt-get install ghost`".into(),
            install: vec![],
        }];
    })
    .await;
    let file = h.write("a.ghost", "boo\n").await;
    let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
    assert!(error.to_string().contains("apt-get install ghost"), "{error}");
}
