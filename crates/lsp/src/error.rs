//! The engine's error: each variant says what the caller (an agent) can do about it.

use std::path::PathBuf;
use std::time::Duration;

use crate::framing::FrameError;

#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// The file is not inside the workspace. Ask about a file under the workspace root.
    #[error("{path} is outside the workspace {root}")]
    OutsideWorkspace { path: PathBuf, root: PathBuf },
    /// No configured server handles this file type.
    #[error(
        "no language server for {path} (extension {extension:?}); configured languages: {configured}"
    )]
    UnknownLanguage { path: PathBuf, extension: String, configured: String },
    /// The line/character does not exist in the file. Re-read the file and pick a
    /// position on an existing line.
    #[error("position {line}:{character} is not in {path}: {reason}")]
    InvalidPosition { path: PathBuf, line: u32, character: u32, reason: String },
    /// The file could not be read as text (missing, not UTF-8, over the size cap...).
    #[error(transparent)]
    Fs(#[from] dsh_core::FsError),
    /// The arguments are malformed (for example an empty rename target).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The server's program is not installed in the sandbox.
    #[error(
        "language server {server} is not installed: {program} not found on PATH {path}; {hint}"
    )]
    ServerNotFound { server: String, program: String, path: String, hint: String },
    /// The server was missing and installing it failed (offline, a registry error...).
    /// Run `command` in the sandbox by hand, or install the server another way.
    #[error(
        "language server {server} is not installed and installing it failed: {detail}; install it yourself with `{command}` (in the sandbox)"
    )]
    InstallFailed { server: String, command: String, detail: String },
    /// The server could not be started.
    #[error("cannot start language server {server}: {source}")]
    SpawnFailed {
        server: String,
        #[source]
        source: dsh_core::ProcessError,
    },
    /// The server exited (after one restart, if it crashed again). `stderr` is its tail.
    #[error("language server {server} exited: {detail}{}", stderr_suffix(stderr))]
    ServerExited { server: String, detail: String, stderr: String },
    /// The server's sandbox went away under it (killed, paused, unreachable). It is not
    /// restarted: the next request starts one once the sandbox is back.
    #[error(
        "language server {server} was lost: its sandbox went away (killed, paused or unreachable)"
    )]
    ServerLost { server: String },
    /// The server did not answer in time. The request was cancelled; if the server did
    /// not acknowledge the cancellation either, it was stopped and will be restarted on
    /// the next request. Retrying may help if the server was still indexing.
    #[error("language server {server} did not answer {method} within {after:?}{}", if *restarted { " (it ignored the cancellation and was stopped; it restarts on the next request)" } else { " (request cancelled)" })]
    Timeout { server: String, method: String, after: Duration, restarted: bool },
    /// The server wrote something that is not LSP framing (or an oversized frame) on
    /// stdout. It was stopped and restarts on the next request.
    #[error(
        "language server {server} broke the protocol: {source}; it was stopped and restarts on the next request{}",
        stderr_suffix(stderr)
    )]
    Protocol {
        server: String,
        #[source]
        source: FrameError,
        stderr: String,
    },
    /// A frame was not valid JSON-RPC.
    #[error(
        "language server {server} sent an invalid message: {detail}; it was stopped and restarts on the next request"
    )]
    InvalidMessage { server: String, detail: String },
    /// The server produced output faster than it could be read (bytes were dropped). It
    /// was stopped and restarts on the next request.
    #[error(
        "language server {server} flooded its output ({skipped} bytes dropped); it was stopped and restarts on the next request"
    )]
    OutputOverflow { server: String, skipped: u64 },
    /// The server answered with a JSON-RPC error.
    #[error("language server {server} failed {method}: {message} (code {code})")]
    Rpc { server: String, method: String, code: i64, message: String },
    /// The server does not implement this operation.
    #[error("language server {server} does not support {operation}")]
    Unsupported { server: String, operation: String },
    /// Talking to the sandbox failed.
    #[error("language server {server}: {source}")]
    Process {
        server: String,
        #[source]
        source: dsh_core::ProcessError,
    },
    /// The engine was disposed.
    #[error("the language-server engine has been shut down")]
    Disposed,
}

impl LspError {
    /// Whether the sandbox is gone or unreachable (rather than the server or the request
    /// being at fault): retrying helps only once the sandbox is back.
    pub fn is_unavailable(&self) -> bool {
        use dsh_core::{FsError, ProcessError};
        match self {
            Self::ServerLost { .. } | Self::Fs(FsError::Unavailable(_)) => true,
            Self::SpawnFailed { source, .. } | Self::Process { source, .. } => {
                matches!(source, ProcessError::Unavailable(_))
            }
            _ => false,
        }
    }
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.trim().is_empty() { String::new() } else { format!("; stderr: {}", stderr.trim()) }
}

impl LspError {
    /// Whether the server's connection is unusable after this error (it is stopped and
    /// restarted on the next request).
    pub fn is_fatal_to_server(&self) -> bool {
        matches!(
            self,
            Self::ServerExited { .. }
                | Self::ServerLost { .. }
                | Self::Protocol { .. }
                | Self::InvalidMessage { .. }
                | Self::OutputOverflow { .. }
                | Self::Timeout { restarted: true, .. }
                | Self::Process { .. }
        )
    }
}
