//! Configuration: which servers exist, how to start them, and the engine's limits.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One language server (`[lsp.servers.<name>]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Names the server in results and errors (`pyright`, `typescript`...).
    pub name: String,
    /// Program and arguments; the program is looked up in the engine's search PATH.
    pub command: Vec<String>,
    /// File extensions it serves, without the dot (`py`, `ts`...).
    pub extensions: Vec<String>,
    /// Files or directories marking a project root (`pyproject.toml`, `package.json`...).
    /// The nearest ancestor of the file (inside the workspace) holding one is the root; the
    /// workspace root otherwise.
    #[serde(default)]
    pub root_markers: Vec<String>,
    /// Sent as `initializationOptions`.
    #[serde(default)]
    pub initialization_options: serde_json::Value,
    /// Answers `workspace/configuration`: each requested `section` (dotted) is looked up
    /// in this object; missing sections answer `null`.
    #[serde(default)]
    pub settings: serde_json::Value,
    /// How to install the server, shown when it is missing.
    #[serde(default)]
    pub install_hint: String,
    /// npm packages (pinned, `name@version`, or a local package path) that provide the
    /// server: on first use, when [`LspConfig::provision`] allows, from
    /// [`LspConfig::server_cache`] (the program is then `<its bin>/<command[0]>`), else
    /// installed into [`LspConfig::install_prefix`]. Empty: the engine never installs it.
    #[serde(default)]
    pub install: Vec<String>,
}

impl ServerConfig {
    /// Whether this server handles files with `extension` (without the dot).
    pub fn serves(&self, extension: &str) -> bool {
        self.extensions.iter().any(|e| e.eq_ignore_ascii_case(extension))
    }
}

/// The built-in servers: Python (pyright), TypeScript/JavaScript
/// (typescript-language-server) and Rust (rust-analyzer, used when present).
pub fn default_servers() -> Vec<ServerConfig> {
    let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    vec![
        ServerConfig {
            name: "pyright".into(),
            command: strings(&["pyright-langserver", "--stdio"]),
            extensions: strings(&["py", "pyi"]),
            root_markers: strings(&[
                "pyrightconfig.json",
                "pyproject.toml",
                "setup.py",
                "setup.cfg",
                "requirements.txt",
            ]),
            initialization_options: serde_json::json!({}),
            settings: serde_json::json!({
                "python": { "analysis": {
                    "autoSearchPaths": true,
                    "diagnosticMode": "openFilesOnly",
                    "useLibraryCodeForTypes": true
                } }
            }),
            install_hint: "install it in the sandbox with `npm install -g pyright@1.1.414` \
                (dsh's scripts/install-language-servers puts it in <repo>/.tools/node_modules/.bin), \
                and make sure its directory is on the language-server search PATH"
                .into(),
            // The versions scripts/install-language-servers pins.
            install: strings(&["pyright@1.1.414"]),
        },
        ServerConfig {
            name: "typescript".into(),
            command: strings(&["typescript-language-server", "--stdio"]),
            extensions: strings(&["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"]),
            root_markers: strings(&["tsconfig.json", "jsconfig.json", "package.json"]),
            // One semantic tsserver: the partial-semantic syntax server would answer while
            // the project loads, without knowing the other files (an import's definition
            // would stop at the import).
            initialization_options: serde_json::json!({
                "tsserver": { "useSyntaxServer": "never" }
            }),
            settings: serde_json::Value::Null,
            install_hint: "install it in the sandbox with `npm install -g \
                typescript-language-server@5.1.3 typescript@5.9.3` (dsh's \
                scripts/install-language-servers puts it in <repo>/.tools/node_modules/.bin), \
                and make sure its directory is on the language-server search PATH"
                .into(),
            install: strings(&["typescript-language-server@5.1.3", "typescript@5.9.3"]),
        },
        ServerConfig {
            name: "rust-analyzer".into(),
            command: strings(&["rust-analyzer"]),
            extensions: strings(&["rs"]),
            root_markers: strings(&["Cargo.toml"]),
            initialization_options: serde_json::json!({}),
            settings: serde_json::Value::Null,
            install_hint: "install it in the sandbox with `rustup component add rust-analyzer`"
                .into(),
            install: Vec::new(),
        },
    ]
}

/// Everything the engine needs besides the seams.
#[derive(Debug, Clone)]
pub struct LspConfig {
    pub servers: Vec<ServerConfig>,
    /// Absolute sandbox path; every file asked about must resolve inside it.
    pub workspace_root: PathBuf,
    /// The servers' environment (build it with [`dsh_core::child_env`]).
    pub env: BTreeMap<String, String>,
    /// Directories searched for server programs, before `env`'s `PATH` (for example
    /// `<repo>/.tools/node_modules/.bin`). The spawned server's `PATH` is this search
    /// path followed by `env`'s `PATH`.
    pub search_path: Vec<PathBuf>,
    /// The server runs in the engine's own process namespace (the local backend): then
    /// `initialize` carries the host pid as `processId`; otherwise `null`.
    pub same_process_namespace: bool,
    /// Largest source file sent to a server.
    pub max_file_bytes: u64,
    /// Largest LSP frame accepted from a server.
    pub max_frame_bytes: usize,
    /// Cap on a server's captured stdout (the byte stream the engine reads).
    pub stdout_cap_bytes: usize,
    /// Cap on a server's captured stderr (kept for error messages).
    pub stderr_cap_bytes: usize,
    /// How long a request may take before it is cancelled.
    pub request_timeout: Duration,
    /// After `$/cancelRequest`, how long the server gets to answer before it is
    /// considered hung and restarted.
    pub cancel_grace: Duration,
    /// How long start-up (`initialize`) may take.
    pub startup_timeout: Duration,
    /// How long to wait for `publishDiagnostics` for the current document version.
    pub diagnostics_timeout: Duration,
    /// Grace between TERM and KILL when a server is stopped.
    pub kill_grace: Duration,
    /// Provide a missing server on first use (see [`ServerConfig::install`]).
    pub provision: bool,
    /// Where servers are installed (`npm install --prefix`); their programs land in
    /// `<prefix>/node_modules/.bin`, which belongs on `search_path`. None: never install.
    pub install_prefix: Option<PathBuf>,
    /// How long one install may take.
    pub install_timeout: Duration,
    /// Tried before installing in the sandbox (when [`Self::provision`] allows): a cache
    /// that makes a server's packages appear in the sandbox without installing them there.
    pub server_cache: Option<Arc<dyn crate::ServerCache>>,
}

impl LspConfig {
    /// The defaults for a workspace: built-in servers, 2 MiB files, 8 MiB frames, 16 MiB
    /// stdout, 30 s requests.
    pub fn new(workspace_root: impl Into<PathBuf>, env: BTreeMap<String, String>) -> Self {
        Self {
            servers: default_servers(),
            workspace_root: workspace_root.into(),
            env,
            search_path: Vec::new(),
            same_process_namespace: false,
            max_file_bytes: 2 * 1024 * 1024,
            max_frame_bytes: 8 * 1024 * 1024,
            stdout_cap_bytes: 16 * 1024 * 1024,
            stderr_cap_bytes: 256 * 1024,
            request_timeout: Duration::from_secs(30),
            cancel_grace: Duration::from_secs(2),
            startup_timeout: Duration::from_secs(60),
            diagnostics_timeout: Duration::from_secs(30),
            kill_grace: Duration::from_secs(2),
            provision: true,
            install_prefix: None,
            install_timeout: Duration::from_secs(300),
            server_cache: None,
        }
    }

    /// `search_path` followed by `env`'s `PATH`, as one `PATH` value.
    pub fn effective_path(&self) -> String {
        let mut parts: Vec<String> =
            self.search_path.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if let Some(path) = self.env.get("PATH") {
            parts.extend(path.split(':').filter(|p| !p.is_empty()).map(str::to_owned));
        }
        parts.join(":")
    }

    /// The configured languages, for error messages: `pyright (.py, .pyi), ...`.
    pub fn describe_languages(&self) -> String {
        self.servers
            .iter()
            .map(|s| {
                let exts: Vec<String> = s.extensions.iter().map(|e| format!(".{e}")).collect();
                format!("{} ({})", s.name, exts.join(", "))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}
