//! Code Mode: model-written TypeScript programs that run in the sandbox and call tools
//! dispatched on the host.
//!
//! ```text
//!  host                                              sandbox (through the seams)
//!  CodeEngine::run(code)                             node <cwd>/.dsh-e2b/code-runner-<sha>.js
//!    strip_types (swc, positions kept)     ─ run ▶     main thread: frames, ledger, budgets
//!    validate EVERY frame               ◀─ call ──       fresh Worker per program
//!    ToolDispatcher (≤ 10 at once)      ── reply ─▶      (env {}, heap cap, async body)
//!    output ledger, wall/abort          ◀─ log/done ─    next Worker pre-spawned while idle
//! ```
//!
//! - [`strip`]: TypeScript → JavaScript on the host with swc_ts_fast_strip, positions
//!   kept; `enum`, parameter properties and namespaces refused with their line and column.
//! - [`lossless`]: the tagged JSON both sides speak, so `undefined`, NaN, ±Infinity, -0,
//!   BigInt and lone surrogates cross exactly.
//! - [`CodeEngine`]: installs the runner (`runner/runner.js`, shipped in the crate and
//!   verified by SHA-256), keeps one runner per sandbox alive, drives a run and treats
//!   any frame it cannot validate as `invalid-output`, killing the runner's group.
//!
//! The wire: each line is `base64(UTF-8 JSON)` (ASCII whatever the transport), one
//! frame per line. See the top of `runner/runner.js` for the frame kinds.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

pub use dsh_core::BoxFuture;
use dsh_core::CancellationToken;

mod engine;
mod frame;
pub mod lossless;
pub mod strip;
mod wire;

pub use engine::{CodeConfig, CodeEngine, RunnerScript};
#[doc(hidden)]
pub use frame::decode_runner_line;
pub use lossless::{JsString, JsValue, LosslessError};
pub use strip::{StripError, StripErrorKind, strip_types};

/// The runner shipped with the crate.
pub const RUNNER_SOURCE: &str = include_str!("../runner/runner.js");

/// A tool a program can call as `tools.<name>(args)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
}

/// A failed tool call; the program sees a `ToolCallError` with `toolName` and `message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{tool_name}: {message}")]
pub struct ToolCallFailure {
    pub tool_name: String,
    pub message: String,
}

/// The host's tools, as a program sees them. `dsh-tools` implements it over its
/// registry (with the host's permission decisions); `run_code` itself is never bound.
pub trait ToolDispatcher: Send + Sync {
    /// The tools to bind.
    fn tools(&self) -> Vec<ToolInfo>;
    /// Calls one tool with plain JSON arguments.
    fn call<'a>(
        &'a self,
        name: &'a str,
        args: serde_json::Value,
    ) -> BoxFuture<'a, Result<serde_json::Value, ToolCallFailure>>;
}

/// Budgets of one program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall time from the start of the run (default 600 s).
    pub wall: Duration,
    /// Busy compute time of the program's worker (default 60 s).
    pub cpu: Duration,
    /// The worker's old-generation heap cap (default 512 MiB).
    pub heap_mb: u32,
    /// Logs + the returned value, in bytes (default 64 KiB). Tool traffic is not counted.
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            wall: Duration::from_secs(600),
            cpu: Duration::from_secs(60),
            heap_mb: 512,
            max_output_bytes: 64 * 1024,
        }
    }
}

/// Ends a run from the host with `abort` and the caller's message. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct AbortSignal {
    token: CancellationToken,
    message: Arc<Mutex<Option<String>>>,
}

impl AbortSignal {
    pub fn new() -> Self {
        Self::default()
    }

    /// Aborts the run (the first message wins).
    pub fn abort(&self, message: impl Into<String>) {
        let mut slot = self.message.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(message.into());
        }
        drop(slot);
        self.token.cancel();
    }

    pub fn is_aborted(&self) -> bool {
        self.token.is_cancelled()
    }

    fn message(&self) -> String {
        self.message
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .unwrap_or_else(|| "aborted".to_owned())
    }
}

/// One program to run.
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    /// TypeScript or JavaScript: the body of an async function.
    pub code: String,
    /// Budgets; `None` takes the engine's defaults.
    pub limits: Option<Limits>,
    pub abort: Option<AbortSignal>,
}

impl RunRequest {
    pub fn new(code: impl Into<String>) -> Self {
        Self { code: code.into(), ..Self::default() }
    }

    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = Some(limits);
        self
    }

    pub fn with_abort(mut self, abort: AbortSignal) -> Self {
        self.abort = Some(abort);
        self
    }
}

/// How a run failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunErrorKind {
    /// The program threw (or did not parse: see [`RunError::location`]).
    Exception,
    /// The wall-time or busy-compute budget ran out.
    Timeout,
    /// The host aborted the run; the message is the caller's.
    Abort,
    /// The program's worker (or the runner) exited: `process.exit`, the heap cap.
    WorkerExit,
    /// The runner said something that does not validate; it was killed.
    InvalidOutput,
    /// Logs + the returned value crossed `max_output_bytes`; what fit is kept.
    OutputLimit,
}

impl RunErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exception => "exception",
            Self::Timeout => "timeout",
            Self::Abort => "abort",
            Self::WorkerExit => "worker-exit",
            Self::InvalidOutput => "invalid-output",
            Self::OutputLimit => "output-limit",
        }
    }
}

impl fmt::Display for RunErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A 1-based position in the model's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    pub line: u32,
    pub column: u32,
}

/// A typed run failure.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RunError {
    pub kind: RunErrorKind,
    pub message: String,
    /// Where the program was refused before running (syntax / unsupported TypeScript).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

impl RunError {
    pub fn new(kind: RunErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), location: None }
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    /// Console output, one entry per `console.*` call.
    pub logs: Vec<String>,
    /// The returned value as lossless (tagged) JSON; `None` when the program returned
    /// `undefined` or failed.
    pub result: Option<serde_json::Value>,
    /// The returned value exactly (object key order kept).
    pub value: Option<JsValue>,
    pub error: Option<RunError>,
}

/// Failures of the engine itself (not of the program).
#[derive(Debug, thiserror::Error)]
pub enum CodeError {
    /// Installing the runner into `<cwd>/.dsh-e2b/` failed, or the installed file does
    /// not have the expected SHA-256.
    #[error("cannot install the code runner: {0}")]
    Install(String),
    /// The runner did not start or did not say hello correctly (is `node` installed in
    /// the sandbox?).
    #[error("cannot start the code runner: {0}")]
    Start(String),
    /// The engine was disposed.
    #[error("the code engine was disposed")]
    Disposed,
    /// The runner's sandbox went away under the run (killed, paused, unreachable): how
    /// far the program got is unknown. Run it again once the sandbox is back.
    #[error("the code runner was lost: its sandbox went away (killed, paused or unreachable)")]
    Lost,
}
