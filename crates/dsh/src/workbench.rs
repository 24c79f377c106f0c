//! One sandbox and everything built on it: the runtime (seams), the engines (terminals,
//! and later language servers and Code Mode), and a tool registry per owner (agent).
//! The MCP server and `dsh tour` both stand on this.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use anyhow::Context as _;

use crate::config::{BackendKind, Config};
use dsh_core::{BoxFuture, DisposeReport, Engine, Runtime};
use dsh_e2b::Sandbox;
use dsh_pty::engine::{EngineConfig, TerminalEngine};
use dsh_tools::terminal::register_terminal_tools;
use dsh_tools::{ToolContext, ToolRegistry};

use crate::connect::{DaemonArgs, Embedded};

/// The per-owner registries' background tasks, disposed with the runtime.
struct RegistriesEngine(Mutex<Vec<Arc<ToolRegistry>>>);

impl Engine for RegistriesEngine {
    fn name(&self) -> &str {
        "background tasks"
    }
    fn dispose(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let registries: Vec<Arc<ToolRegistry>> =
                std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()));
            for registry in registries {
                registry.dispose().await;
            }
        })
    }
}

pub struct Workbench {
    pub runtime: Runtime,
    pub sandbox: Option<Arc<Sandbox>>,
    pub terminals: Arc<TerminalEngine>,
    pub lsp: Arc<dsh_lsp::LspEngine>,
    pub code: Arc<dsh_code::CodeEngine>,
    /// The base environment for commands and shells in the sandbox.
    pub env: BTreeMap<String, String>,
    registries: Arc<RegistriesEngine>,
    embedded: Option<Embedded>,
    /// "local sandbox (embedded dsh-sandboxd)", "E2B cloud", "host (no isolation)".
    pub backend_name: String,
}

/// The environment tools give processes: a plain PATH and locale, and the `HOME` of the
/// user they run as; nothing from the host (secrets in particular) crosses.
fn base_env(runtime: &Runtime) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert(
        "PATH".into(),
        "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".into(),
    );
    env.insert("LANG".into(), "C.UTF-8".into());
    env.insert("HOME".into(), runtime.home.to_string_lossy().into_owned());
    env
}

/// The `[lsp.servers.<name>]` tables as server configurations (the table's name is the
/// server's unless it sets `name`); a bad key is an error naming the table.
pub fn configured_servers(config: &Config) -> anyhow::Result<Vec<dsh_lsp::ServerConfig>> {
    config
        .lsp
        .servers
        .iter()
        .map(|(name, table)| {
            let mut table = table.clone();
            table.entry("name").or_insert_with(|| toml::Value::String(name.clone()));
            toml::Value::Table(table)
                .try_into::<dsh_lsp::ServerConfig>()
                .map_err(|err| anyhow::anyhow!("[lsp.servers.{name}]: {}", err.message()))
        })
        .collect()
}

/// Where dsh installs language servers in the sandbox: `<runtime root>/servers`.
pub fn language_server_prefix(runtime_root: &std::path::Path) -> std::path::PathBuf {
    runtime_root.join("servers")
}

fn language_server_bin(runtime_root: &std::path::Path) -> std::path::PathBuf {
    language_server_prefix(runtime_root).join("node_modules/.bin")
}

/// Language servers from the local sandbox daemon's layers: built on the host once per
/// machine, mounted read-only into every sandbox of that daemon.
#[derive(Debug)]
struct DaemonServerCache {
    layers: dsh_e2b::Layers,
    /// The control plane is a remote deployment (E2B cloud, a self-hosted E2B, or a
    /// dsh-sandboxd behind TLS): the layer API is dsh's extension, which such a deployment
    /// may lack or refuse in any way (404, 401, 405), so every failure there means "npm in
    /// the sandbox" rather than an error.
    remote: bool,
}

impl dsh_lsp::ServerCache for DaemonServerCache {
    fn provide<'a>(
        &'a self,
        packages: &'a [String],
        progress: Option<&'a dsh_core::Progress>,
    ) -> BoxFuture<'a, Result<Option<dsh_lsp::CachedServer>, String>> {
        Box::pin(async move {
            match self.layers.provide_npm(packages).await {
                Ok(provided) => Ok(Some(dsh_lsp::CachedServer {
                    bin: provided.layer.bin,
                    cached: provided.cached,
                })),
                // A daemon without layers: the sandbox installs its own, as before.
                Err(dsh_e2b::LayerError::Unsupported) => Ok(None),
                // This daemon cannot build layers (it says why), or not from these specs
                // (it takes exact registry versions; npm also takes ranges and local
                // paths): npm in the sandbox may still work, so that is tried instead.
                Err(
                    dsh_e2b::LayerError::Unavailable(why) | dsh_e2b::LayerError::BadRecipe(why),
                ) => {
                    tracing::warn!(%why, "the sandbox daemon cannot provide this language server");
                    if let Some(progress) = progress {
                        progress(&format!(
                            "this machine's language-server cache cannot help ({why}); installing in the sandbox"
                        ));
                    }
                    Ok(None)
                }
                Err(err) if self.remote => {
                    tracing::debug!(error = %err, "no layer API at this deployment; npm in the sandbox");
                    Ok(None)
                }
                Err(err) => Err(format!(
                    "the sandbox daemon could not provide {}: {err}",
                    packages.join(" ")
                )),
            }
        })
    }
}

impl Workbench {
    /// Whether the sandbox comes from a daemon embedded in this process.
    pub fn is_embedded(&self) -> bool {
        self.embedded.is_some()
    }

    /// Opens the backend the configuration asks for; with no daemon configured, a local
    /// sandbox daemon is embedded in this process.
    pub async fn open(config: &Config, daemon: &DaemonArgs) -> anyhow::Result<Self> {
        // Checked first: a bad server table must not cost a sandbox.
        configured_servers(config)?;
        // The sandbox daemon's layer API (the host backend has none; a remote deployment
        // is asked too, and one without it falls back to npm in the sandbox).
        let (runtime, sandbox, embedded, backend_name, layers) = match config.backend.kind {
            BackendKind::Host => {
                let cwd = match &config.backend.host_cwd {
                    Some(cwd) => cwd.clone(),
                    None => std::env::current_dir().context("no current directory")?,
                };
                let runtime = Runtime::on_host(&cwd)
                    .await
                    .with_context(|| format!("preparing {}", cwd.display()))?;
                (runtime, None, None, "host (no isolation)".to_owned(), None)
            }
            BackendKind::Sandbox => {
                let (connection, embedded, name) = if daemon.configured()
                    || config.sandbox.api_key.is_some()
                {
                    let connection = if daemon.configured() {
                        daemon.connection()?
                    } else {
                        dsh_e2b::Connection::from_config(&config.sandbox)?
                    };
                    let name = if connection.envd_url.is_some() {
                        "local sandbox daemon"
                    } else {
                        "E2B cloud"
                    };
                    (connection, None, name)
                } else {
                    let embedded = Embedded::start(&config.sandboxd).await?;
                    (embedded.connection(), Some(embedded), "local sandbox (embedded dsh-sandboxd)")
                };
                let local = embedded.is_some() || connection.envd_url.is_some();
                let layers = dsh_e2b::http_client().ok().map(|http| DaemonServerCache {
                    layers: dsh_e2b::Layers::for_connection(http, &connection),
                    remote: !local,
                });
                match dsh_e2b::open_runtime(&connection, &config.sandbox).await {
                    Ok((runtime, sandbox)) => {
                        (runtime, Some(sandbox), embedded, name.to_owned(), layers)
                    }
                    Err(err) => {
                        if let Some(embedded) = embedded {
                            let _ = embedded.stop().await;
                        }
                        return Err(err.into());
                    }
                }
            }
        };
        let env = base_env(&runtime);
        let mut shell_env = env.clone();
        shell_env.insert("TERM".into(), "xterm-256color".into());
        let terminals = Arc::new(TerminalEngine::new(
            Arc::clone(&runtime.terminals),
            EngineConfig::new(&runtime.cwd, shell_env),
        ));
        let mut lsp_config = dsh_lsp::LspConfig::new(&runtime.cwd, env.clone());
        lsp_config.same_process_namespace = runtime.same_process_namespace;
        // Servers dsh installs for the sandbox user (on first use) live in dsh's private
        // directory.
        lsp_config.search_path.insert(0, language_server_bin(&runtime.runtime_root));
        lsp_config.install_prefix = Some(language_server_prefix(&runtime.runtime_root));
        lsp_config.provision = config.lsp.provision == crate::config::Provision::Auto;
        // Before installing in the sandbox, the local daemon is asked for the server: it
        // builds it once per machine and mounts it into every sandbox.
        lsp_config.server_cache =
            layers.map(|cache| Arc::new(cache) as Arc<dyn dsh_lsp::ServerCache>);
        for server in configured_servers(config)? {
            lsp_config.servers.retain(|s| s.name != server.name);
            lsp_config.servers.push(server);
        }
        let lsp = Arc::new(dsh_lsp::LspEngine::new(
            Arc::clone(&runtime.fs),
            Arc::clone(&runtime.subprocess),
            lsp_config,
        ));
        let code_config =
            dsh_code::CodeConfig { env: env.clone(), ..dsh_code::CodeConfig::default() };
        let code = Arc::new(dsh_code::CodeEngine::new(
            Arc::clone(&runtime.fs),
            Arc::clone(&runtime.subprocess),
            &runtime.cwd,
            code_config,
        ));
        let registries = Arc::new(RegistriesEngine(Mutex::new(Vec::new())));
        // Disposed in reverse: tasks, code runner, language servers, terminals.
        runtime.register_engine(terminals.clone());
        runtime.register_engine(lsp.clone());
        runtime.register_engine(code.clone());
        runtime.register_engine(registries.clone());
        Ok(Self { runtime, sandbox, terminals, lsp, code, env, registries, embedded, backend_name })
    }

    /// A registry with every tool, for one owner (an agent; each MCP session is one).
    pub fn registry(&self, owner: &str) -> Arc<ToolRegistry> {
        let ctx = ToolContext::new(
            Arc::clone(&self.runtime.fs),
            Arc::clone(&self.runtime.subprocess),
            &self.runtime.cwd,
            self.env.clone(),
        );
        let mut registry = ToolRegistry::new(ctx);
        register_terminal_tools(&mut registry, Arc::clone(&self.terminals), owner);
        dsh_tools::lsp::register_lsp_tool(&mut registry, Arc::clone(&self.lsp));
        dsh_tools::code::register_run_code_tool(&mut registry, Arc::clone(&self.code));
        let registry = Arc::new(registry);
        self.registries.0.lock().unwrap_or_else(|p| p.into_inner()).push(Arc::clone(&registry));
        registry
    }

    /// Everything an owner started (terminals) ends; its registry's tasks too.
    pub async fn close_owner(&self, owner: &str, registry: &ToolRegistry) {
        self.terminals.close_owner(owner).await;
        registry.dispose().await;
    }

    pub fn sandbox_id(&self) -> Option<&str> {
        self.sandbox.as_deref().map(Sandbox::id)
    }

    /// Engines first (each awaits its processes), then the sandbox policy. The embedded
    /// daemon (if any) keeps running until [`Self::shutdown`].
    pub async fn dispose(&self) -> DisposeReport {
        self.runtime.dispose().await
    }

    /// Disposes (if not done yet) and stops the embedded daemon.
    pub async fn shutdown(self) -> anyhow::Result<DisposeReport> {
        let report = self.runtime.dispose().await;
        if let Some(embedded) = self.embedded {
            embedded.stop().await?;
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// What MCP clients are shown before a sandbox exists is what a session's registry
    /// has: the same names, descriptions and schemas.
    #[tokio::test]
    async fn the_static_catalogue_lists_exactly_a_sessions_tools() {
        let scratch = tempfile::tempdir().unwrap();
        let mut config = Config::default();
        config.backend.kind = BackendKind::Host;
        config.backend.host_cwd = Some(scratch.path().to_path_buf());
        let daemon = DaemonArgs {
            api_url: None,
            api_key: None,
            sandbox_url: None,
            state_dir: None,
            domain: None,
        };
        let workbench = Workbench::open(&config, &daemon).await.unwrap();
        let listed = workbench.registry("catalogue-test").list();
        workbench.shutdown().await.unwrap();
        let catalogue = dsh_tools::catalogue();
        let names: Vec<&str> = catalogue.iter().map(|spec| spec.name).collect();
        assert_eq!(
            names,
            [
                "bash",
                "edit",
                "glob",
                "grep",
                "lsp",
                "read",
                "run_code",
                "task_kill",
                "task_output",
                "terminal_close",
                "terminal_list",
                "terminal_open",
                "terminal_read",
                "terminal_send",
                "terminal_signal",
                "write"
            ]
        );
        assert_eq!(listed, catalogue);
    }

    #[test]
    fn lsp_server_tables_become_server_configs_and_bad_keys_are_named() {
        let config = Config::from_toml(
            "[lsp.servers.gopls]\ncommand = [\"gopls\", \"serve\"]\nextensions = [\"go\"]\nroot_markers = [\"go.mod\"]\n",
            "dsh.toml",
        )
        .unwrap();
        let servers = configured_servers(&config).unwrap();
        assert_eq!(servers.len(), 1);
        assert_eq!(
            (servers[0].name.as_str(), servers[0].command.as_slice()),
            ("gopls", &["gopls".to_owned(), "serve".to_owned()][..])
        );
        assert_eq!(servers[0].root_markers, ["go.mod"]);
        let bad = Config::from_toml(
            "[lsp.servers.x]\ncommand = [\"x\"]\nextensions = []\nextentions = []\n",
            "dsh.toml",
        )
        .unwrap();
        let err = configured_servers(&bad).unwrap_err().to_string();
        assert!(err.starts_with("[lsp.servers.x]: unknown field `extentions`"), "{err}");
    }
}
