//! Harnesses: the engine over the local backend (files in a tempdir) or over the sandbox
//! backend talking to a real dsh-envd on loopback.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dsh_core::{Fs, Subprocess, WriteExpectation};
use dsh_lsp::{LspConfig, LspEngine, LspOutput, LspResult, Operation};

/// `<repo>/.tools/node_modules/.bin`, checked to hold the servers.
pub fn tools_bin() -> PathBuf {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/node_modules/.bin");
    let bin = bin.canonicalize().unwrap_or(bin);
    for server in ["pyright-langserver", "typescript-language-server"] {
        assert!(
            bin.join(server).exists(),
            "{server} is not installed in {}: run scripts/install-language-servers \
             (scripts/test does it in its language_servers step)",
            bin.display()
        );
    }
    bin
}

pub const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// A minimal environment for servers (the sandbox user's HOME comes from envd).
pub fn base_env(path: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("PATH".to_owned(), path.to_owned()),
        ("LANG".to_owned(), "C.UTF-8".to_owned()),
    ])
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Host,
    Sandbox,
}

pub struct Harness {
    pub engine: LspEngine,
    pub fs: Arc<dyn Fs>,
    pub root: PathBuf,
    _tempdir: Option<tempfile::TempDir>,
    _daemon: Option<dsh_envd::testing::TestDaemon>,
}

impl Harness {
    /// A workspace root on `backend`; `configure` adjusts the config (whose env PATH is
    /// the system PATH only).
    pub async fn new(backend: Backend, configure: impl FnOnce(&mut LspConfig)) -> Self {
        let (fs, subprocess, root, tempdir, daemon, same_ns): (
            Arc<dyn Fs>,
            Arc<dyn Subprocess>,
            PathBuf,
            _,
            _,
            bool,
        ) = match backend {
            Backend::Host => {
                let dir = tempfile::tempdir().unwrap();
                let root = dir.path().canonicalize().unwrap().join("proj");
                std::fs::create_dir(&root).unwrap();
                let local = Arc::new(dsh_core::host::Host::new());
                (local.clone(), local, root, Some(dir), None, true)
            }
            Backend::Sandbox => {
                let daemon = dsh_envd::testing::start().await.unwrap();
                let envd = dsh_e2b::EnvdClient::new(
                    dsh_e2b::http_client().unwrap(),
                    dsh_e2b::EnvdTarget::direct(&daemon.base_url),
                    None,
                );
                let backend = Arc::new(dsh_e2b::SandboxBackend::new(envd, None));
                let root = daemon.home.join("proj");
                backend.make_dir(&root, true).await.unwrap();
                (backend.clone(), backend, root, None, Some(daemon), false)
            }
        };
        let mut config = LspConfig::new(&root, base_env(SYSTEM_PATH));
        config.same_process_namespace = same_ns;
        configure(&mut config);
        Self {
            engine: LspEngine::new(fs.clone(), subprocess, config),
            fs,
            root,
            _tempdir: tempdir,
            _daemon: daemon,
        }
    }

    /// Writes a file through the Fs seam; returns its absolute path.
    pub async fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.root.join(relative);
        self.fs.write_text(&path, text, WriteExpectation::Any).await.unwrap();
        path
    }

    pub async fn ask(&self, op: Operation, path: &Path, line: u32, character: u32) -> LspResult {
        match self.engine.request(op.clone(), path, line, character).await {
            Ok(result) => result,
            Err(error) => panic!("{} at {}:{line}:{character}: {error}", op.name(), path.display()),
        }
    }
}

/// 1-based UTF-16 column of the `nth` (0-based) occurrence of `needle` on 1-based `line`.
pub fn column_of(text: &str, line: u32, needle: &str, nth: usize) -> u32 {
    let line_text = dsh_lsp::position::lines(text)[line as usize - 1];
    let byte = line_text.match_indices(needle).nth(nth).unwrap().0;
    dsh_lsp::position::byte_to_utf16(line_text, byte) + 1
}

pub fn hover_text(result: &LspResult) -> String {
    match &result.output {
        LspOutput::Hover(Some(text)) => text.clone(),
        other => panic!("expected hover text, got {other:?}"),
    }
}

pub fn locations(result: &LspResult) -> Vec<dsh_lsp::Location> {
    match &result.output {
        LspOutput::Locations(items) => items.clone(),
        other => panic!("expected locations, got {other:?}"),
    }
}

pub fn diagnostics(result: &LspResult) -> Vec<dsh_lsp::Diagnostic> {
    match &result.output {
        LspOutput::Diagnostics(items) => items.clone(),
        other => panic!("expected diagnostics, got {other:?}"),
    }
}
