//! The seams between dsh's engines and the sandbox, the host backend and the runtime.
//!
//! Every engine (tools, terminals, language servers, Code Mode) reaches the sandbox ONLY
//! through the three seams defined here, so it never knows which backend is underneath:
//!
//! - [`Fs`]: path resolution, `stat`/`lstat`, strict UTF-8 reads with a size cap, atomic
//!   writes and edits checked against a [`Version`] (so an edit refuses a file that
//!   changed since it was read), directory listing, remove, rename, make_dir.
//! - [`Subprocess`]: one-shot processes from a fully explicit [`SpawnSpec`] (argv, cwd,
//!   the whole environment, stdin, capped output, grace, timeout, cancellation). Every
//!   process leads its own session and process group; timeout, cancellation, dropping
//!   the handle and [`Process::terminate`] all end the whole group (TERM, grace, KILL).
//! - [`Terminals`]: interactive processes on a PTY, with the byte stream exactly as
//!   produced, resize, the foreground process group and signals to it.
//!
//! A backend implements the small traits in these modules; the host-side machinery that
//! must behave the same everywhere (output capping and offsets, the termination
//! sequence, timeout and cancellation supervision) lives here once, in [`Process`],
//! [`Terminal`] and [`OutputBuffer`], and is shared by every backend.
//!
//! [`host`] is the host-OS backend (no isolation). The e2b backend (crate `dsh-e2b`) implements the
//! same traits over the envd protocol. Environments for spawned processes are built with
//! [`child_env`], which strips secrets (`*KEY*`, `*SECRET*`, `*TOKEN*`, `DSH_*`).

use std::future::Future;
use std::pin::Pin;

mod env;
pub mod fs;
pub mod host;
mod lifecycle;
mod output;
pub mod process;
pub mod runtime;
pub mod terminal;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use env::{child_env, is_secret_key};
pub use fs::{
    DirEntry, EditOutcome, EditRequest, FileKind, Fs, FsError, Metadata, ReadBytes, ReadText,
    Version, WriteExpectation, WriteOperation, WriteOutcome, apply_edit, normalize_lexically,
};
pub use output::{CapturedOutput, OutputBuffer, OutputChunk, OutputMode};
pub use process::{
    EndReason, ExitStatus, Process, ProcessControl, ProcessError, ProcessParts, RawExit, Signal,
    SpawnSpec, StdinMode, Subprocess,
};
pub use runtime::{DisposeReport, Engine, PRIVATE_DIR, Runtime, RuntimeBuilder, SandboxOwner};
pub use terminal::{
    Terminal, TerminalControl, TerminalError, TerminalOutput, TerminalParts, TerminalSize,
    TerminalSpec, Terminals,
};
pub use tokio_util::sync::CancellationToken;

/// A boxed, sendable future: the seams return these so they stay object-safe
/// (`Arc<dyn Fs>`, `Arc<dyn Subprocess>`, `Arc<dyn Terminals>`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where a slow operation says what it is waiting for, one line at a time (no newline):
/// passed per call by whoever shows it (an MCP progress notification, a CLI status line),
/// so an operation that is not asked reports nothing.
pub type Progress = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// Any error from this crate; each module's own error folds in here.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A filesystem seam error; see [`FsError`] for what the caller can do.
    #[error(transparent)]
    Fs(#[from] FsError),
    /// A subprocess seam error; see [`ProcessError`].
    #[error(transparent)]
    Process(#[from] ProcessError),
    /// A terminal seam error; see [`TerminalError`].
    #[error(transparent)]
    Terminal(#[from] TerminalError),
}

/// `Result` with this crate's [`Error`] by default.
pub type Result<T, E = Error> = std::result::Result<T, E>;
