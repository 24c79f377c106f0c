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

pub struct Runtime {
    pub fs: Arc<dyn Fs>,
    pub subprocess: Arc<dyn Subprocess>,
    pub terminals: Arc<dyn Terminals>,
    /// The session workspace (relative paths resolve here).
    pub cwd: PathBuf,
    /// Private files of dsh's helpers (`<cwd>/.dsh-e2b` in a sandbox).
    pub runtime_root: PathBuf,
    /// Whether processes share the host's pid namespace (only the local backend does):
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

impl Runtime {
    pub fn new(
        fs: Arc<dyn Fs>,
        subprocess: Arc<dyn Subprocess>,
        terminals: Arc<dyn Terminals>,
        cwd: PathBuf,
        runtime_root: PathBuf,
        same_process_namespace: bool,
        owner: Option<Arc<dyn SandboxOwner>>,
    ) -> Self {
        Self {
            fs,
            subprocess,
            terminals,
            cwd,
            runtime_root,
            same_process_namespace,
            engines: Mutex::new(Vec::new()),
            owner,
            disposed: AtomicBool::new(false),
        }
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
