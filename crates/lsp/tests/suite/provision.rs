//! A missing server is installed on first use (npm, into the engine's install prefix),
//! once; a failed install says what to run; with provisioning off, the hint is given.

use std::path::Path;
use std::time::Duration;

use dsh_lsp::{LspError, Operation, ServerConfig};

use super::common::{Backend, Harness, hover_text, tools_bin};

/// A local npm package whose one program starts the real pyright: what the registry's
/// `pyright` package gives, without the download.
pub(super) fn package(dir: &Path) -> String {
    let package = dir.join("provisioned-pyright");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(
        package.join("package.json"),
        r#"{"name": "provisioned-pyright", "version": "1.0.0", "bin": {"provisioned-pyright": "server.sh"}}"#,
    )
    .unwrap();
    let real = tools_bin().join("pyright-langserver");
    std::fs::write(
        package.join("server.sh"),
        format!("#!/bin/sh\nexec {} \"$@\"\n", real.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        package.join("server.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    package.to_string_lossy().into_owned()
}

pub(super) fn server(install: Vec<String>) -> ServerConfig {
    ServerConfig {
        name: "provisioned".into(),
        command: vec!["provisioned-pyright".into(), "--stdio".into()],
        extensions: vec!["py".into()],
        root_markers: vec![],
        initialization_options: serde_json::json!({}),
        settings: serde_json::Value::Null,
        install_hint: "it is a test fixture".into(),
        install,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_server_is_installed_on_first_use() {
    let packages = tempfile::tempdir().unwrap();
    let install = vec![package(packages.path())];
    let h = Harness::new(Backend::Host, |c| {
        let prefix = c.workspace_root.join(".dsh-e2b/servers");
        c.search_path = vec![prefix.join("node_modules/.bin")];
        c.install_prefix = Some(prefix);
        c.servers = vec![server(install)];
        c.request_timeout = Duration::from_secs(60);
    })
    .await;
    let file = h
        .write("a.py", "def greet() -> str:\n    \"\"\"Say hi.\"\"\"\n    return 'hi'\n\ngreet()\n")
        .await;
    let hover = hover_text(&h.ask(Operation::Hover, &file, 5, 1).await);
    assert!(hover.contains("Say hi."), "{hover}");
    let installed = h.root.join(".dsh-e2b/servers/node_modules/.bin/provisioned-pyright");
    assert!(installed.exists(), "{} missing", installed.display());
    h.engine.dispose().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_install_says_what_to_run_and_off_means_the_hint() {
    let missing = "/nonexistent/dsh-test-package".to_owned();
    let h = Harness::new(Backend::Host, |c| {
        let prefix = c.workspace_root.join(".dsh-e2b/servers");
        c.search_path = vec![prefix.join("node_modules/.bin")];
        c.install_prefix = Some(prefix);
        c.servers = vec![server(vec![missing.clone()])];
    })
    .await;
    let file = h.write("a.py", "x = 1\n").await;
    let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
    let LspError::InstallFailed { server: name, command, detail } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(name, "provisioned");
    let prefix = h.root.join(".dsh-e2b/servers");
    assert_eq!(
        command,
        &format!(
            "npm install --prefix {} --no-audit --no-fund --loglevel=error {missing}",
            prefix.display()
        )
    );
    assert!(detail.starts_with("npm ended with exit code "), "{detail}");
    assert!(
        error
            .to_string()
            .ends_with(&format!("install it yourself with `{command}` (in the sandbox)"))
    );

    // Provisioning off: the install hint, nothing run.
    let h = Harness::new(Backend::Host, |c| {
        c.install_prefix = Some(c.workspace_root.join(".dsh-e2b/servers"));
        c.provision = false;
        c.servers = vec![server(vec![missing.clone()])];
    })
    .await;
    let file = h.write("a.py", "x = 1\n").await;
    let error = h.engine.request(Operation::Hover, &file, 1, 1).await.unwrap_err();
    assert!(matches!(error, LspError::ServerNotFound { .. }), "{error:?}");
    assert!(!h.root.join(".dsh-e2b/servers").exists());
}
