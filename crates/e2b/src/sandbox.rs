//! The shared sandbox owner: created or connected ONCE from configuration, it exposes
//! the session workspace and the private runtime root, and applies the dispose policy
//! exactly once. Every engine uses this one owner; none creates another sandbox.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use dsh_core::runtime::PRIVATE_DIR;
use dsh_core::{BoxFuture, Fs, Runtime, SandboxOwner};

use crate::config::{OnDispose, SandboxConfig, SecretSource};

use crate::backend::SandboxBackend;
use crate::control::{ControlPlane, E2B_API_URL, NewSandbox, SandboxInfo};
use crate::envd::{EnvdClient, EnvdTarget};
use crate::error::{Error, Result};

/// Where the control plane and envd are, resolved from configuration (or from an
/// embedded local daemon the caller started).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connection {
    pub api_url: String,
    pub api_key: String,
    /// A router that takes `E2b-Sandbox-Id` (a local dsh-sandboxd, or `E2B_SANDBOX_URL`);
    /// unset: E2B cloud's envd URLs on `domain`.
    pub envd_url: Option<String>,
    pub domain: Option<String>,
}

/// E2B cloud's domain, what `E2B_DOMAIN` defaults to.
pub const E2B_DOMAIN: &str = "e2b.app";

impl Connection {
    /// E2B cloud (or whatever `api_url` names) from the sandbox section. Needs a key.
    pub fn from_config(config: &SandboxConfig) -> Result<Self> {
        let api_key = config.api_key.clone().filter(|k| !k.is_empty()).ok_or_else(|| {
            Error::Invalid(
                "no API key: set E2B_API_KEY (or sandbox.api_key) for E2B cloud, or leave the API URL unset to use dsh's local sandboxes"
                    .into(),
            )
        })?;
        Ok(Self::resolve(
            config.api_url.as_deref(),
            api_key,
            config.envd_url.as_deref(),
            config.domain.as_deref(),
        ))
    }

    /// An E2B deployment (cloud or self-hosted), as the SDKs find one
    /// (`e2b/connection_config.py`): the API at `api_url`, else at `https://api.<domain>`;
    /// the domain from `domain` (`E2B_DOMAIN`), else from an `https://api.<domain>` URL,
    /// else `e2b.app`. envd goes through `envd_url` (`E2B_SANDBOX_URL`) when given, else
    /// through the sandbox's hosts on the domain.
    pub fn resolve(
        api_url: Option<&str>,
        api_key: String,
        envd_url: Option<&str>,
        domain: Option<&str>,
    ) -> Self {
        let from_url = api_url
            .and_then(|url| url.strip_prefix("https://api."))
            .map(|rest| rest.split(['/', ':']).next().unwrap_or(rest).to_owned());
        let domain = domain
            .filter(|d| !d.is_empty())
            .map(str::to_owned)
            .or(from_url)
            .unwrap_or_else(|| E2B_DOMAIN.to_owned());
        let api_url = match api_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None if domain == E2B_DOMAIN => E2B_API_URL.to_owned(),
            None => format!("https://api.{domain}"),
        };
        Self { api_url, api_key, envd_url: envd_url.map(str::to_owned), domain: Some(domain) }
    }
}

pub struct Sandbox {
    control: ControlPlane,
    info: SandboxInfo,
    backend: SandboxBackend,
    cwd: PathBuf,
    runtime_root: PathBuf,
    on_dispose: OnDispose,
    /// The user tools run as (unset: the sandbox's default user).
    user: Option<String>,
    disposed: AtomicBool,
    /// Extends the sandbox's timeout while this owner holds it; stopped at disposal.
    keepalive: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.stop_keepalive();
    }
}

/// E2B's answer to extending a sandbox past the team's maximum length (400).
const MAX_LENGTH_EXCEEDED: &str = "Max instance length exceeded";

/// Sets the sandbox's timeout to `timeout_secs` from now every `every`, for as long as
/// the owner lives: a long interactive session is not killed (or paused) at its first
/// deadline while the agent still works in it, and a dsh that dies stops extending, so
/// the sandbox still ends `timeout_secs` later. A failed extension is logged and retried
/// at the next tick (the deadline is a third of the timeout away by default).
async fn keep_alive(
    control: ControlPlane,
    id: String,
    every: std::time::Duration,
    timeout_secs: u32,
) {
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match control.set_timeout(&id, timeout_secs).await {
            Ok(()) => tracing::debug!(sandbox = %id, timeout_secs, "sandbox timeout extended"),
            // E2B answers 404 for a sandbox that is gone or paused (a paused one is not in
            // its store of running sandboxes: packages/api/internal/orchestrator/keep_alive.go).
            Err(err) if err.is_not_found() => {
                tracing::debug!(sandbox = %id, "sandbox gone or paused: no more extensions");
                return;
            }
            // keep_alive.go: 400 "Max instance length exceeded" once the sandbox has run
            // as long as the team may: no extension can succeed again, and the sandbox
            // ends at the deadline it has. Said once, then the keep-alive stops.
            Err(Error::Http { status: 400, message }) if message == MAX_LENGTH_EXCEEDED => {
                tracing::warn!(
                    sandbox = %id,
                    "the sandbox has reached the team's maximum length; it ends at its current deadline"
                );
                return;
            }
            Err(err) => tracing::warn!(sandbox = %id, %err, "cannot extend the sandbox's timeout"),
        }
    }
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("id", &self.info.sandbox_id)
            .field("cwd", &self.cwd)
            .finish()
    }
}

/// Whether [`Sandbox::open`] makes the tools' workspace and runtime root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Workspace {
    Prepare,
    Skip,
}

/// Puts every secret of `[sandbox.secrets]` into the control plane's `/secrets` (created,
/// or updated when the name exists), each value read on the host through `env` and the
/// file system. Every value is read before any is sent, so a missing variable or file
/// changes nothing. Errors name the secret, never its value; nothing logs a value.
pub async fn put_secrets(
    control: &ControlPlane,
    secrets: &std::collections::BTreeMap<String, SecretSource>,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<()> {
    let mut values = Vec::with_capacity(secrets.len());
    for (name, source) in secrets {
        values.push((name, source.read(name, env)?));
    }
    for (name, value) in values {
        control.put_secret(name, &value).await.map_err(|err| match err {
            Error::Http { status, message } => Error::Http {
                status,
                message: format!("storing secret {name} (sandbox.secrets): {message}"),
            },
            Error::Transport(message) => {
                Error::Transport(format!("storing secret {name} (sandbox.secrets): {message}"))
            }
            other => other,
        })?;
        tracing::debug!(secret = %name, "secret put into the control plane");
    }
    Ok(())
}

impl Sandbox {
    /// Creates (from `template`) or connects (to `sandbox_id`) the sandbox, then makes
    /// sure the workspace and the runtime root (mode 0700) exist. If that fails, a
    /// sandbox created here is killed again: nothing half-made is left behind.
    pub async fn open(
        http: reqwest::Client,
        connection: &Connection,
        config: &SandboxConfig,
    ) -> Result<Self> {
        Self::open_with(http, connection, config, Workspace::Prepare).await
    }

    /// [`Sandbox::open`] for running commands only (`dsh exec`): the tools' workspace and
    /// runtime root are not made, which saves three envd calls, one a process.
    pub async fn open_for_commands(
        http: reqwest::Client,
        connection: &Connection,
        config: &SandboxConfig,
    ) -> Result<Self> {
        Self::open_with(http, connection, config, Workspace::Skip).await
    }

    async fn open_with(
        http: reqwest::Client,
        connection: &Connection,
        config: &SandboxConfig,
        workspace: Workspace,
    ) -> Result<Self> {
        let control = ControlPlane::new(http.clone(), &connection.api_url, &connection.api_key);
        // First the secrets the rules may name: a create naming a missing one is refused.
        put_secrets(&control, &config.secrets, &|name| std::env::var(name).ok()).await?;
        let (info, created) = match &config.sandbox_id {
            Some(id) => (control.connect(id, config.timeout_secs).await?, false),
            None => (control.create(&NewSandbox::from_config(config)).await?, true),
        };
        // The sandbox's own domain first, then the configured one (the SDKs: `domain` of
        // the create answer, else `E2B_DOMAIN`, `e2b/sandbox_async/main.py`).
        let target =
            match (&connection.envd_url, info.domain.as_deref().or(connection.domain.as_deref())) {
                (Some(url), _) => EnvdTarget::routed(url, &info.sandbox_id),
                (None, domain) => EnvdTarget::cloud(&info.sandbox_id, domain.unwrap_or(E2B_DOMAIN)),
            };
        let envd = EnvdClient::new(http, target, info.envd_access_token.clone())
            .with_envd_version(&info.envd_version);
        if let Some(version) = envd.envd_version()
            && version < crate::envd::EnvdVersion::OLDEST
        {
            if created {
                let _ = control.kill(&info.sandbox_id).await;
            }
            return Err(Error::Unsupported {
                feature: "dsh (it needs envd 0.3.0 or later)",
                envd_version: version.to_string(),
            });
        }
        let backend = SandboxBackend::new(envd, config.user.clone());
        let cwd = config.cwd.clone();
        let runtime_root = cwd.join(PRIVATE_DIR);
        let sandbox = Self {
            control,
            info,
            backend,
            cwd,
            runtime_root,
            on_dispose: config.on_dispose,
            user: config.user.clone(),
            disposed: AtomicBool::new(false),
            keepalive: std::sync::Mutex::new(None),
        };
        if workspace == Workspace::Prepare
            && let Err(err) = sandbox.prepare().await
        {
            if created {
                let _ = sandbox.control.kill(&sandbox.info.sandbox_id).await;
            }
            return Err(err);
        }
        let every = config.keepalive_secs.unwrap_or(config.timeout_secs / 3);
        if every > 0 && config.timeout_secs > 0 {
            let task = tokio::spawn(keep_alive(
                sandbox.control.clone(),
                sandbox.info.sandbox_id.clone(),
                std::time::Duration::from_secs(u64::from(every)),
                config.timeout_secs,
            ));
            *sandbox.keepalive_task() = Some(task);
        }
        Ok(sandbox)
    }

    fn keepalive_task(&self) -> std::sync::MutexGuard<'_, Option<tokio::task::JoinHandle<()>>> {
        // A poisoned lock still holds a valid handle (or none).
        self.keepalive.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn stop_keepalive(&self) {
        if let Some(task) = self.keepalive_task().take() {
            task.abort();
        }
    }

    async fn prepare(&self) -> Result<()> {
        let fs_error = |err: dsh_core::FsError| {
            Error::Invalid(format!("preparing the sandbox workspace: {err}"))
        };
        self.backend.make_dir(&self.cwd, true).await.map_err(fs_error)?;
        self.backend.make_dir(&self.runtime_root, true).await.map_err(fs_error)?;
        let root = self.runtime_root.to_string_lossy().into_owned();
        self.backend.run_helper(&["chmod", "700", "--", &root]).await?;
        Ok(())
    }

    pub fn id(&self) -> &str {
        &self.info.sandbox_id
    }

    pub fn info(&self) -> &SandboxInfo {
        &self.info
    }

    pub fn backend(&self) -> &SandboxBackend {
        &self.backend
    }

    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    pub fn runtime_root(&self) -> &Path {
        &self.runtime_root
    }

    pub fn control(&self) -> &ControlPlane {
        &self.control
    }

    /// `HOME` of the user tools run as (E2B's default user is `user`).
    pub fn home(&self) -> PathBuf {
        match self.user.as_deref().unwrap_or("user") {
            "root" => PathBuf::from("/root"),
            user => Path::new("/home").join(user),
        }
    }

    /// A runtime over this sandbox: its seams, workspace and user's `HOME`, with the
    /// sandbox as the owner disposed after the engines.
    pub fn runtime(self: &Arc<Self>) -> Runtime {
        let owner: Arc<dyn SandboxOwner> = self.clone();
        Runtime::builder(Arc::new(self.backend.clone()), self.cwd.clone())
            .home(self.home())
            .owner(owner)
            .build()
    }

    /// Applies the dispose policy once; later calls do nothing.
    pub async fn dispose(&self) -> Result<String> {
        if self.disposed.swap(true, Ordering::SeqCst) {
            return Ok("already disposed".into());
        }
        self.stop_keepalive();
        let id = &self.info.sandbox_id;
        match self.on_dispose {
            OnDispose::Kill => {
                self.control.kill(id).await?;
                Ok(format!("killed sandbox {id}"))
            }
            OnDispose::Pause => {
                if self.control.pause(id, true).await? {
                    Ok(format!("paused sandbox {id}"))
                } else {
                    Ok(format!("sandbox {id} was already paused"))
                }
            }
            OnDispose::Leave => Ok(format!("left sandbox {id} running")),
        }
    }
}

impl SandboxOwner for Sandbox {
    fn dispose(&self) -> BoxFuture<'_, std::result::Result<String, String>> {
        Box::pin(async move { Sandbox::dispose(self).await.map_err(|err| err.to_string()) })
    }
}

/// Opens the sandbox `config` names through `connection` and a runtime over it (the
/// sandbox is the runtime's owner). The caller registers engines on it and must call
/// `dispose()` at the end.
pub async fn open_runtime(
    connection: &Connection,
    config: &SandboxConfig,
) -> Result<(Runtime, Arc<Sandbox>)> {
    let sandbox =
        Arc::new(Sandbox::open(crate::http_client_for(connection)?, connection, config).await?);
    Ok((sandbox.runtime(), sandbox))
}
