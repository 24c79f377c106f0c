//! Reaching sandboxes: a configured daemon (E2B cloud or a running `dsh sandbox serve`),
//! or a daemon embedded in this process for one command's lifetime.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use dsh_e2b::Connection;

/// Hidden subcommand: dsh run as the in-sandbox daemon (dsh-envd), by the embedded
/// daemon, so one binary is all a machine needs.
pub const HIDDEN_ENVD: &str = "__envd";
/// Hidden subcommand: dsh run as a sandbox's pid 1 (dsh-sandbox-init).
pub const HIDDEN_SANDBOX_INIT: &str = "__sandbox-init";

/// Where `dsh sandbox serve` keeps its state by default.
pub fn default_state_dir() -> PathBuf {
    per_user_dir("/var/lib/dsh-sandboxd", "XDG_STATE_HOME", ".local/state", "dsh/sandboxd")
}

/// `for_root` as root; otherwise `tail` under `$<xdg_variable>`, else under
/// `$HOME/<home_default>`, else under /tmp (the XDG base directory rules).
fn per_user_dir(for_root: &str, xdg_variable: &str, home_default: &str, tail: &str) -> PathBuf {
    // Root of a user's namespace (rootless) is still that user: their directories.
    if dsh_sandboxd::rootless::is_host_root() {
        return PathBuf::from(for_root);
    }
    let base = std::env::var_os(xdg_variable)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(home_default)))
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    base.join(tail)
}

/// Where daemons of this user keep layers unless `[sandboxd] layer_store` says: one store
/// per machine (per user), so a language server is installed once, whichever daemon asks.
pub fn default_layer_store() -> PathBuf {
    per_user_dir("/var/cache/dsh/layers", "XDG_CACHE_HOME", ".cache", "dsh/layers")
}

/// Whether the command in `args` may run local sandboxes as an ordinary user, and so
/// must enter the user's namespace first: `Some(true)` when it cannot work otherwise
/// (`dsh sandbox serve`, `dsh sandbox unshare`), `Some(false)` when it would embed a
/// daemon unless E2B or a daemon is configured, `None` for root and other commands.
pub fn local_sandboxes_wanted(args: &[std::ffi::OsString]) -> Option<bool> {
    if rustix::process::geteuid().is_root() {
        return None;
    }
    let words: Vec<&str> = args.iter().skip(1).filter_map(|a| a.to_str()).collect();
    let command = words.iter().find(|w| !w.starts_with('-'))?;
    if *command == "sandbox" {
        let sub = words.iter().filter(|w| !w.starts_with('-')).nth(1);
        return matches!(sub, Some(&"serve") | Some(&"unshare")).then_some(true);
    }
    let embeds = ["tour", "mcp", "exec", "fs", "lsp", "code", "shell"];
    let elsewhere = ["E2B_API_KEY", "E2B_API_URL", "E2B_DOMAIN"]
        .iter()
        .any(|name| std::env::var_os(name).is_some())
        || words.iter().any(|w| {
            ["--api-url", "--api-key", "--domain", "--backend=e2b"]
                .iter()
                .any(|flag| w == flag || w.starts_with(&format!("{flag}=")))
        })
        || words.windows(2).any(|pair| pair == ["--backend", "e2b"]);
    (embeds.contains(command) && !elsewhere).then_some(false)
}

static ROOTLESS_ERROR: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Why this user's process could not enter its namespace (said when a local sandbox
/// daemon is started after all).
pub fn set_rootless_error(reason: String) {
    let _ = ROOTLESS_ERROR.set(reason);
}

/// The default address of `dsh sandbox serve`.
pub const DEFAULT_DAEMON_URL: &str = "http://127.0.0.1:3000";

/// Options naming a control plane (flags fall back to E2B's environment variables).
#[derive(Debug, Clone, clap::Args)]
pub struct DaemonArgs {
    /// Control-plane URL (E2B cloud: https://api.e2b.app; a local daemon: http://127.0.0.1:3000).
    #[arg(long, env = "E2B_API_URL", global = true)]
    pub api_url: Option<String>,
    /// API key (a local daemon's key is read from its state directory when not given).
    #[arg(long, env = "E2B_API_KEY", hide_env_values = true, global = true)]
    pub api_key: Option<String>,
    /// envd router URL (what E2B_SANDBOX_URL means to the SDKs).
    #[arg(long, env = "E2B_SANDBOX_URL", global = true)]
    pub sandbox_url: Option<String>,
    /// The E2B deployment's domain (E2B cloud: e2b.app; a self-hosted E2B: its own). The
    /// API is then https://api.<domain> unless --api-url says otherwise.
    #[arg(long, env = "E2B_DOMAIN", global = true)]
    pub domain: Option<String>,
    /// State directory of the local daemon whose API key to use.
    #[arg(long, env = "DSH_SANDBOXD_STATE", global = true)]
    pub state_dir: Option<PathBuf>,
}

impl DaemonArgs {
    /// Whether anything points at a daemon (else commands may embed one).
    pub fn configured(&self) -> bool {
        self.api_url.is_some() || self.api_key.is_some()
    }

    /// Whether this names an E2B deployment (cloud or self-hosted) rather than a local
    /// `dsh sandbox serve`: a domain is given, or the API is HTTPS (a local daemon
    /// serves plain HTTP on loopback), or only a key is.
    fn is_e2b(&self) -> bool {
        match &self.api_url {
            _ if self.domain.is_some() => true,
            Some(url) => url.starts_with("https://"),
            None => self.api_key.is_some(),
        }
    }

    /// The connection to an already running daemon.
    pub fn connection(&self) -> anyhow::Result<Connection> {
        let e2b = self.is_e2b();
        let api_key = match &self.api_key {
            Some(key) => key.clone(),
            None => {
                let state = self.state_dir.clone().unwrap_or_else(default_state_dir);
                let path = state.join(dsh_sandboxd::server::API_KEY_FILE);
                std::fs::read_to_string(&path).map(|k| k.trim().to_owned()).with_context(|| {
                    format!(
                        "no sandbox daemon to talk to: no API key given and {} is unreadable.\n\
                         Start a local daemon with `dsh sandbox serve`, or set E2B_API_KEY for E2B cloud",
                        path.display()
                    )
                })?
            }
        };
        if e2b {
            return Ok(Connection::resolve(
                self.api_url.as_deref(),
                api_key,
                self.sandbox_url.as_deref(),
                self.domain.as_deref(),
            ));
        }
        let api_url = self.api_url.clone().unwrap_or_else(|| DEFAULT_DAEMON_URL.to_owned());
        let envd_url = self.sandbox_url.clone().unwrap_or_else(|| api_url.clone());
        Ok(Connection { api_url, api_key, envd_url: Some(envd_url), domain: None })
    }
}

const EMBEDDED_PREFIX: &str = "dsh-embedded-";
const OWNER_FILE: &str = "owner.pid";

/// Removes the state of embedded daemons whose process died without cleaning up (their
/// sandboxes already ended with them; only files remain).
fn sweep_abandoned(base: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with(EMBEDDED_PREFIX) {
            continue;
        }
        let owner = std::fs::read_to_string(entry.path().join(OWNER_FILE))
            .ok()
            .and_then(|p| p.trim().parse::<u32>().ok());
        let alive = owner.is_some_and(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists());
        if owner.is_some() && !alive {
            tracing::debug!(dir = %entry.path().display(), "removing an abandoned embedded daemon's state");
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A daemon running inside this process, over a private temporary state directory,
/// that uses this very binary as envd and as the sandbox init.
pub struct Embedded {
    daemon: Option<dsh_sandboxd::Daemon>,
    _state: tempfile::TempDir,
}

/// The daemon configuration for `settings` (`[sandboxd]` in dsh.toml), with this very
/// binary as envd and as the sandbox init.
pub fn daemon_config(
    state_dir: &Path,
    settings: &crate::config::SandboxdConfig,
) -> anyhow::Result<dsh_sandboxd::DaemonConfig> {
    use crate::config::IsolationSetting;
    let exe = std::env::current_exe().context("cannot locate the dsh binary")?;
    let mut config = dsh_sandboxd::DaemonConfig::new(state_dir);
    config.envd_binary = Some(exe.clone());
    config.envd_args = vec![HIDDEN_ENVD.into()];
    config.init_binary = Some(exe);
    config.init_args = vec![HIDDEN_SANDBOX_INIT.into()];
    config.isolation = match settings.isolation {
        IsolationSetting::Strict => dsh_sandboxd::IsolationLevel::Strict,
        IsolationSetting::Namespaces => dsh_sandboxd::IsolationLevel::Namespaces,
    };
    config.pool = match settings.pool {
        Some(size) => dsh_sandboxd::server::PoolSize::Fixed(usize::try_from(size)?),
        None => dsh_sandboxd::server::PoolSize::Auto,
    };
    config.layer_store = Some(settings.layer_store.clone().unwrap_or_else(default_layer_store));
    config.net = match settings.net {
        crate::config::NetSetting::Private => dsh_sandboxd::Net::Private,
        crate::config::NetSetting::None => dsh_sandboxd::Net::None,
        crate::config::NetSetting::Host => dsh_sandboxd::Net::Host,
    };
    config.defaults = dsh_sandboxd::server::SandboxDefaults {
        cpu_count: settings.cpu_count,
        memory_mb: settings.memory_mb,
        max_processes: settings.max_processes,
        disk_mb: settings.disk_mb,
    };
    config.disk_image_mb = settings.disk_image_mb;
    config.volume_mb = settings.volume_mb;
    config.runtime = settings.runtime;
    config.egress_hosts = settings.egress_hosts.clone();
    config.egress_trust = settings.egress_trust.clone();
    Ok(config)
}

/// `[sandboxd]` from `dsh.toml` in the current directory (missing: defaults) and the
/// environment (`DSH_SANDBOXD_ISOLATION`).
pub fn sandboxd_settings(file: &Path) -> anyhow::Result<crate::config::SandboxdConfig> {
    let config = crate::config::Config::load(file, None, &|name| std::env::var(name).ok())?;
    Ok(config.sandboxd)
}

impl Embedded {
    pub async fn start(settings: &crate::config::SandboxdConfig) -> anyhow::Result<Self> {
        if let Some(reason) = ROOTLESS_ERROR.get() {
            anyhow::bail!(
                "cannot start the embedded local sandbox daemon as this user: {reason}\n(`dsh doctor` checks everything local sandboxes need; or set E2B_API_KEY for E2B cloud)"
            );
        }
        // An ordinary user's embedded daemons keep their state in the user's runtime
        // directory (it dies with the daemon anyway).
        let runtime_dir = std::env::var_os("XDG_RUNTIME_DIR")
            .filter(|_| !dsh_sandboxd::rootless::is_host_root())
            .map(|dir| PathBuf::from(dir).join("dsh"));
        let base = std::env::var_os("DSH_EMBEDDED_STATE")
            .map(PathBuf::from)
            .or(runtime_dir)
            .unwrap_or_else(std::env::temp_dir);
        std::fs::create_dir_all(&base).with_context(|| format!("creating {}", base.display()))?;
        sweep_abandoned(&base);
        let state = tempfile::Builder::new().prefix(EMBEDDED_PREFIX).tempdir_in(&base)?;
        std::fs::write(state.path().join(OWNER_FILE), std::process::id().to_string())?;
        let mut config = daemon_config(&state.path().join("state"), settings)?;
        config.listen = "127.0.0.1:0".parse()?;
        // One process's daemon: a sandbox started ahead would mostly be thrown away.
        // Nor a network set up ahead.
        if settings.pool.is_none() {
            config.pool = dsh_sandboxd::server::PoolSize::Fixed(0);
            config.spare_networks = 0;
        }
        let daemon = dsh_sandboxd::Daemon::start(config).await.context(
            "cannot start the embedded local sandbox daemon (local sandboxes need root, or user namespaces)",
        )?;
        Ok(Self { daemon: Some(daemon), _state: state })
    }

    pub fn connection(&self) -> Connection {
        let (url, key) = match &self.daemon {
            Some(d) => (d.url(), d.api_key().to_owned()),
            None => (String::new(), String::new()),
        };
        Connection { api_url: url.clone(), api_key: key, envd_url: Some(url), domain: None }
    }

    /// Stops the daemon (its remaining sandboxes are paused, then deleted with the state).
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(daemon) = self.daemon.take() {
            daemon.shutdown().await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn args(api_url: Option<&str>, domain: Option<&str>) -> DaemonArgs {
        DaemonArgs {
            api_url: api_url.map(str::to_owned),
            api_key: Some("key".into()),
            sandbox_url: None,
            state_dir: None,
            domain: domain.map(str::to_owned),
        }
    }

    #[test]
    fn a_self_hosted_e2b_keeps_its_domain_and_a_local_daemon_routes_envd() {
        // E2B_DOMAIN alone: the API at api.<domain>, envd on the domain's hosts.
        let hosted = args(None, Some("e2b.corp.test")).connection().unwrap();
        assert_eq!(hosted.api_url, "https://api.e2b.corp.test");
        assert_eq!(hosted.domain.as_deref(), Some("e2b.corp.test"));
        assert_eq!(hosted.envd_url, None);
        // A self-hosted API at another name is still E2B, not a local daemon.
        let other =
            args(Some("https://e2b-api.corp.test"), Some("corp.test")).connection().unwrap();
        assert_eq!(other.api_url, "https://e2b-api.corp.test");
        assert_eq!((other.envd_url, other.domain.as_deref()), (None, Some("corp.test")));
        let cloud = args(None, None).connection().unwrap();
        assert_eq!((cloud.api_url.as_str(), cloud.envd_url), ("https://api.e2b.app", None));
        let local = args(Some("http://127.0.0.1:3000"), None).connection().unwrap();
        assert_eq!(local.envd_url.as_deref(), Some("http://127.0.0.1:3000"));
        assert_eq!(local.domain, None);
    }
}
