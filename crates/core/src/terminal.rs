//! The terminal seam: interactive processes on a PTY.
//!
//! A backend starts the program as a session leader with the PTY as its controlling
//! terminal and hands [`TerminalParts`] to [`Terminal::start`]. The byte stream is
//! delivered exactly as produced (no decoding, no filtering: that is the terminal
//! engine's job on the host); it is bounded, so a consumer that stops reading eventually
//! applies flow control to the program, as a real terminal would.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::BoxFuture;
use crate::lifecycle::{ExitStatus, Lifecycle, Stopper, Supervision};
use crate::process::{RawExit, Signal};

/// A terminal size in character cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalSize {
    pub rows: u16,
    pub cols: u16,
}

/// Everything about a terminal program to start; as with [`crate::SpawnSpec`], nothing is
/// inherited (set `TERM` in `env`).
#[derive(Debug, Clone)]
pub struct TerminalSpec {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub env: BTreeMap<String, String>,
    pub size: TerminalSize,
    /// Between TERM/HUP and KILL when the terminal is terminated.
    pub grace: Duration,
    /// Terminate the terminal when this fires.
    pub cancel: CancellationToken,
}

impl TerminalSpec {
    /// A spec with a 2 s grace and a fresh cancellation token.
    pub fn new(
        argv: impl IntoIterator<Item = impl Into<String>>,
        cwd: impl Into<PathBuf>,
        env: BTreeMap<String, String>,
        size: TerminalSize,
    ) -> Self {
        Self {
            argv: argv.into_iter().map(Into::into).collect(),
            cwd: cwd.into(),
            env,
            size,
            grace: Duration::from_secs(2),
            cancel: CancellationToken::new(),
        }
    }
}

/// A terminal error. Each variant says what the caller can do about it.
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    /// The spec is malformed (empty argv, zero size). Fix it.
    #[error("invalid terminal spec: {0}")]
    InvalidSpec(String),
    /// The working directory does not exist. Create it or pick another.
    #[error("working directory does not exist: {0}")]
    CwdNotFound(PathBuf),
    /// The program could not be started. Check `argv[0]` and `PATH` in the environment.
    #[error("cannot start {program}: {source}")]
    SpawnFailed {
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// The terminal's program has exited; input, resize and signals no longer apply.
    #[error("terminal has exited")]
    Exited,
    /// The process group is not part of this terminal's session; signals are only
    /// delivered inside the session. Use the foreground group.
    #[error("process group {0} is not in this terminal's session")]
    NotInSession(u32),
    /// The backend is gone (sandbox killed, connection lost). Reconnect or recreate it.
    #[error("terminal backend unavailable: {0}")]
    Unavailable(String),
    /// Any other I/O failure on the PTY.
    #[error("terminal i/o: {0}")]
    Io(#[from] std::io::Error),
}

/// The backend's control over one terminal.
pub trait TerminalControl: Send + Sync + 'static {
    /// Writes bytes to the PTY (what a user types).
    fn write<'a>(&'a self, data: &'a [u8]) -> BoxFuture<'a, Result<(), TerminalError>>;
    /// Changes the window size (the foreground program gets SIGWINCH).
    fn resize(&self, size: TerminalSize) -> BoxFuture<'_, Result<(), TerminalError>>;
    /// The terminal's foreground process group.
    fn foreground_group(&self) -> BoxFuture<'_, Result<u32, TerminalError>>;
    /// Delivers `signal` to process group `pgid`, which must belong to the session.
    fn signal_group(&self, pgid: u32, signal: Signal) -> BoxFuture<'_, Result<(), TerminalError>>;
}

/// What a backend hands to [`Terminal::start`].
pub struct TerminalParts {
    /// The session leader (the shell).
    pub pid: u32,
    pub control: Arc<dyn TerminalControl>,
    /// The PTY's output, chunk by chunk, ending when the PTY closes.
    pub output: mpsc::Receiver<Bytes>,
    pub exit: watch::Receiver<Option<RawExit>>,
}

/// Starts terminal programs in the sandbox.
///
/// Object-safe: hold it as `Arc<dyn Terminals>`.
pub trait Terminals: Send + Sync {
    /// Starts `spec` on a new PTY of `spec.size`.
    fn spawn_terminal(&self, spec: TerminalSpec) -> BoxFuture<'_, Result<Terminal, TerminalError>>;
}

/// The PTY output stream, exactly as produced.
#[derive(Debug)]
pub struct TerminalOutput(mpsc::Receiver<Bytes>);

impl TerminalOutput {
    /// The next chunk, or `None` once the PTY has closed.
    pub async fn next(&mut self) -> Option<Bytes> {
        self.0.recv().await
    }
}

/// A running (or finished) terminal. Dropping the handle terminates it.
pub struct Terminal {
    pid: u32,
    control: Arc<dyn TerminalControl>,
    output: Mutex<Option<TerminalOutput>>,
    lifecycle: Lifecycle,
}

struct SessionStopper {
    pid: u32,
    control: Arc<dyn TerminalControl>,
}

impl SessionStopper {
    async fn groups(&self) -> Vec<u32> {
        let mut groups = vec![self.pid];
        if let Ok(foreground) = self.control.foreground_group().await
            && foreground != self.pid
        {
            groups.push(foreground);
        }
        groups
    }
}

impl Stopper for SessionStopper {
    fn polite(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            for pgid in self.groups().await {
                for signal in [Signal::Hup, Signal::Term, Signal::Cont] {
                    let _ = self.control.signal_group(pgid, signal).await;
                }
            }
        })
    }

    fn kill(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            for pgid in self.groups().await {
                let _ = self.control.signal_group(pgid, Signal::Kill).await;
            }
        })
    }
}

impl Terminal {
    /// Wraps a backend's freshly spawned terminal and supervises it with the spec's grace
    /// and cancellation.
    pub fn start(parts: TerminalParts, spec: &TerminalSpec) -> Self {
        let TerminalParts { pid, control, output, exit } = parts;
        let stopper = SessionStopper { pid, control: Arc::clone(&control) };
        let lifecycle = Lifecycle::start(
            Arc::new(stopper),
            Supervision {
                exit,
                outputs: Vec::new(),
                grace: spec.grace,
                timeout: None,
                cancel: spec.cancel.clone(),
            },
        );
        Self { pid, control, output: Mutex::new(Some(TerminalOutput(output))), lifecycle }
    }

    /// The session leader's pid (its session id and its own process group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The output stream; `Some` exactly once.
    pub fn take_output(&self) -> Option<TerminalOutput> {
        self.output.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take()
    }

    /// Writes bytes to the terminal.
    pub async fn write(&self, data: &[u8]) -> Result<(), TerminalError> {
        self.control.write(data).await
    }

    /// Changes the window size.
    pub async fn resize(&self, size: TerminalSize) -> Result<(), TerminalError> {
        self.control.resize(size).await
    }

    /// The foreground process group (the shell's own while it waits at a prompt, a
    /// job's while one runs).
    pub async fn foreground_group(&self) -> Result<u32, TerminalError> {
        self.control.foreground_group().await
    }

    /// Sends `signal` to the foreground process group and returns that group's id.
    pub async fn signal_foreground(&self, signal: Signal) -> Result<u32, TerminalError> {
        let pgid = self.control.foreground_group().await?;
        self.control.signal_group(pgid, signal).await?;
        Ok(pgid)
    }

    /// Sends `signal` to a process group of this terminal's session.
    pub async fn signal_group(&self, pgid: u32, signal: Signal) -> Result<(), TerminalError> {
        self.control.signal_group(pgid, signal).await
    }

    /// Waits for the session leader to exit.
    pub async fn wait(&self) -> ExitStatus {
        self.lifecycle.wait().await
    }

    /// The exit status, if the terminal's program has ended.
    pub fn try_wait(&self) -> Option<ExitStatus> {
        self.lifecycle.try_status()
    }

    /// HUP and TERM to the shell's group and the foreground group, grace, KILL to both.
    pub async fn terminate(&self) -> ExitStatus {
        self.lifecycle.terminate().await
    }
}

impl std::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminal").field("pid", &self.pid).finish_non_exhaustive()
    }
}
