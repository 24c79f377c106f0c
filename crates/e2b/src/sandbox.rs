//! The shared sandbox owner: created or connected ONCE from configuration, it exposes
//! the session workspace and the private runtime root, and applies the dispose policy
//! exactly once. Every engine uses this one owner; none creates another sandbox.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use dsh_core::runtime::PRIVATE_DIR;
use dsh_core::{BoxFuture, Fs, Runtime, SandboxOwner};

use crate::config::{OnDispose, OnTimeout, SandboxConfig};

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

impl Connection {
    /// E2B cloud (or whatever `api_url` names) from the sandbox section. Needs a key.
    pub fn from_config(config: &SandboxConfig) -> Result<Self> {
        let api_key = config.api_key.clone().filter(|k| !k.is_empty()).ok_or_else(|| {
            Error::Invalid(
                "no API key: set E2B_API_KEY (or sandbox.api_key) for E2B cloud, or leave the API URL unset to use dsh's local sandboxes"
                    .into(),
            )
        })?;
        Ok(Self {
            api_url: config.api_url.clone().unwrap_or_else(|| E2B_API_URL.to_owned()),
            api_key,
            envd_url: config.envd_url.clone(),
            domain: config.domain.clone(),
        })
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
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("id", &self.info.sandbox_id)
            .field("cwd", &self.cwd)
            .finish()
    }
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
        let control = ControlPlane::new(http.clone(), &connection.api_url, &connection.api_key);
        let (info, created) = match &config.sandbox_id {
            Some(id) => (control.connect(id, config.timeout_secs).await?, false),
            None => {
                let mut new = NewSandbox::from_template(
                    config.template.clone().unwrap_or_else(|| "base".to_owned()),
                );
                new.timeout = Some(config.timeout_secs);
                new.auto_pause = config.on_timeout == OnTimeout::Pause;
                (control.create(&new).await?, true)
            }
        };
        let target =
            match (&connection.envd_url, info.domain.as_deref().or(connection.domain.as_deref())) {
                (Some(url), _) => EnvdTarget::routed(url, &info.sandbox_id),
                (None, domain) => EnvdTarget::cloud(&info.sandbox_id, domain.unwrap_or("e2b.app")),
            };
        let envd = EnvdClient::new(http, target, info.envd_access_token.clone());
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
        };
        if let Err(err) = sandbox.prepare().await {
            if created {
                let _ = sandbox.control.kill(&sandbox.info.sandbox_id).await;
            }
            return Err(err);
        }
        Ok(sandbox)
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
        let id = &self.info.sandbox_id;
        match self.on_dispose {
            OnDispose::Kill => {
                self.control.kill(id).await?;
                Ok(format!("killed sandbox {id}"))
            }
            OnDispose::Pause => {
                self.control.pause(id, true).await?;
                Ok(format!("paused sandbox {id}"))
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
    let sandbox = Arc::new(Sandbox::open(crate::http_client()?, connection, config).await?);
    Ok((sandbox.runtime(), sandbox))
}
