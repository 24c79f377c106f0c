//! A runtime: the seams of one backend, the engines built on them, and the sandbox owner
//! (if any), with the disposal order the seed requires: engines first (each terminates
//! and awaits its process groups), then the owner applies its policy.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::{BoxFuture, Fs, Subprocess, Terminals};

/// Something holding live processes in the sandbox (a terminal registry, language
/// servers, code runners, background tasks).
pub trait Engine: Send + Sync {
    fn name(&self) -> &str;
    /// Terminates everything the engine started and returns once it has all exited.
    fn dispose(&self) -> BoxFuture<'_, ()>;
}

/// Whoever owns the sandbox (created or connected it) and applies the dispose policy.
pub trait SandboxOwner: Send + Sync {
    /// Applies the policy (kill, pause or leave) and says what was done.
    fn dispose(&self) -> BoxFuture<'_, Result<String, String>>;
}

/// What disposal did, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisposeReport {
    /// Engines in the order they were disposed.
    pub engines: Vec<String>,
    /// The owner's outcome, when there is an owner.
    pub sandbox: Option<Result<String, String>>,
}

/// dsh's private directory inside a workspace (`<cwd>/.dsh-e2b`, mode 0700): its helpers
/// and the language servers it installs for the sandbox user. Named here only.
pub const PRIVATE_DIR: &str = ".dsh-e2b";

/// One backend's seams, the workspace they serve, the engines built on them and the
/// sandbox owner (if any). Made with [`Runtime::builder`] (or [`Runtime::on_host`]).
pub struct Runtime {
    pub fs: Arc<dyn Fs>,
    pub subprocess: Arc<dyn Subprocess>,
    pub terminals: Arc<dyn Terminals>,
    /// The session workspace (relative paths resolve here).
    pub cwd: PathBuf,
    /// dsh's private directory: `<cwd>/`[`PRIVATE_DIR`].
    pub runtime_root: PathBuf,
    /// `HOME` of the user tools run as (the sandbox user's; on the host, the host's).
    pub home: PathBuf,
    /// Whether processes share the host's pid namespace (only the host backend does):
    /// a language server may then be told the host pid.
    pub same_process_namespace: bool,
    engines: Mutex<Vec<Arc<dyn Engine>>>,
    owner: Option<Arc<dyn SandboxOwner>>,
    disposed: AtomicBool,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("cwd", &self.cwd)
            .field("same_process_namespace", &self.same_process_namespace)
            .field("has_owner", &self.owner.is_some())
            .finish_non_exhaustive()
    }
}

/// The named options of a [`Runtime`]; see [`Runtime::builder`].
pub struct RuntimeBuilder {
    fs: Arc<dyn Fs>,
    subprocess: Arc<dyn Subprocess>,
    terminals: Arc<dyn Terminals>,
    cwd: PathBuf,
    home: PathBuf,
    same_process_namespace: bool,
    owner: Option<Arc<dyn SandboxOwner>>,
}

impl RuntimeBuilder {
    /// `HOME` for tools' processes (default `/home/user`, E2B's sandbox user).
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = home.into();
        self
    }

    /// Processes run in the host's pid namespace (the host backend).
    pub fn same_process_namespace(mut self, same: bool) -> Self {
        self.same_process_namespace = same;
        self
    }

    /// Whoever created or connected the sandbox, disposed after the engines.
    pub fn owner(mut self, owner: Arc<dyn SandboxOwner>) -> Self {
        self.owner = Some(owner);
        self
    }

    pub fn build(self) -> Runtime {
        Runtime {
            fs: self.fs,
            subprocess: self.subprocess,
            terminals: self.terminals,
            runtime_root: self.cwd.join(PRIVATE_DIR),
            cwd: self.cwd,
            home: self.home,
            same_process_namespace: self.same_process_namespace,
            engines: Mutex::new(Vec::new()),
            owner: self.owner,
            disposed: AtomicBool::new(false),
        }
    }
}

impl Runtime {
    /// A runtime over `backend` (which implements the three seams) whose workspace is
    /// `cwd`. The caller has made the workspace and [`PRIVATE_DIR`] in it.
    pub fn builder<B>(backend: Arc<B>, cwd: impl Into<PathBuf>) -> RuntimeBuilder
    where
        B: Fs + Subprocess + Terminals + 'static,
    {
        RuntimeBuilder {
            fs: backend.clone(),
            subprocess: backend.clone(),
            terminals: backend,
            cwd: cwd.into(),
            home: PathBuf::from("/home/user"),
            same_process_namespace: false,
            owner: None,
        }
    }

    /// The host backend over workspace `cwd` (no isolation), with its private directory
    /// made (mode 0700) and the host user's `HOME`.
    pub async fn on_host(cwd: impl Into<PathBuf>) -> Result<Runtime, crate::FsError> {
        let cwd = cwd.into();
        let host = Arc::new(crate::host::Host::new());
        let private = cwd.join(PRIVATE_DIR);
        host.make_dir(&private, true).await?;
        std::fs::set_permissions(&private, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .map_err(|source| crate::FsError::Io { op: "chmod", path: private.clone(), source })?;
        let home = std::env::var_os("HOME").map_or_else(|| cwd.clone(), PathBuf::from);
        Ok(Runtime::builder(host, cwd).home(home).same_process_namespace(true).build())
    }

    /// Registers an engine for disposal (engines are disposed newest first).
    pub fn register_engine(&self, engine: Arc<dyn Engine>) {
        self.engines.lock().unwrap_or_else(|p| p.into_inner()).push(engine);
    }

    /// Disposes engines (newest first, each awaited), then the sandbox owner. Runs once;
    /// later calls return an empty report.
    pub async fn dispose(&self) -> DisposeReport {
        if self.disposed.swap(true, Ordering::SeqCst) {
            return DisposeReport { engines: Vec::new(), sandbox: None };
        }
        let engines: Vec<Arc<dyn Engine>> =
            std::mem::take(&mut *self.engines.lock().unwrap_or_else(|p| p.into_inner()));
        let mut names = Vec::new();
        for engine in engines.iter().rev() {
            engine.dispose().await;
            names.push(engine.name().to_owned());
        }
        let sandbox = match &self.owner {
            Some(owner) => Some(owner.dispose().await),
            None => None,
        };
        DisposeReport { engines: names, sandbox }
    }
}
