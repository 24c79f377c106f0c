//! The `Subprocess` seam: one-shot processes with everything explicit.
//!
//! A backend implements [`Subprocess::spawn`] by starting the process as the leader of a
//! new session and process group, feeding its output into [`OutputBuffer`]s and
//! reporting its exit; it hands those [`ProcessParts`] to [`Process::start`], which adds
//! the behaviour every backend shares: timeout, cancellation and [`Process::terminate`]
//! end the whole group (TERM, the spec's grace, KILL), and so does dropping the handle.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::BoxFuture;
pub use crate::lifecycle::{EndReason, ExitStatus};
use crate::lifecycle::{Lifecycle, Stopper, Supervision};
use crate::output::{OutputBuffer, OutputMode};

/// What the process reads on stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StdinMode {
    /// `/dev/null`.
    Ignore,
    /// A pipe the caller writes with [`Process::write_stdin`] and closes with
    /// [`Process::close_stdin`].
    Pipe,
    /// These bytes, then end of file.
    Data(Bytes),
}

/// Everything about a process to start. Nothing is inherited implicitly: `env` is the
/// whole environment (build it with [`crate::child_env`] to strip secrets) and `cwd` must
/// be an absolute sandbox path.
#[derive(Debug, Clone)]
pub struct SpawnSpec {
    /// Program and arguments; `argv[0]` is looked up in `env`'s `PATH` when it has no `/`.
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub env: BTreeMap<String, String>,
    pub stdin: StdinMode,
    pub stdout: OutputMode,
    pub stderr: OutputMode,
    /// Between TERM and KILL when the group is terminated.
    pub grace: Duration,
    /// Terminate the group after this long.
    pub timeout: Option<Duration>,
    /// Terminate the group when this fires.
    pub cancel: CancellationToken,
}

impl SpawnSpec {
    /// Default output cap per stream when a spec is built with [`SpawnSpec::new`].
    pub const DEFAULT_OUTPUT_CAP: usize = 1024 * 1024;
    /// Default grace between TERM and KILL.
    pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);

    /// A spec with stdin ignored, both outputs capped at [`Self::DEFAULT_OUTPUT_CAP`],
    /// [`Self::DEFAULT_GRACE`], no timeout and a fresh cancellation token. Every field is
    /// public: set the others directly.
    pub fn new(
        argv: impl IntoIterator<Item = impl Into<String>>,
        cwd: impl Into<PathBuf>,
        env: BTreeMap<String, String>,
    ) -> Self {
        Self {
            argv: argv.into_iter().map(Into::into).collect(),
            cwd: cwd.into(),
            env,
            stdin: StdinMode::Ignore,
            stdout: OutputMode::Capped { max_bytes: Self::DEFAULT_OUTPUT_CAP },
            stderr: OutputMode::Capped { max_bytes: Self::DEFAULT_OUTPUT_CAP },
            grace: Self::DEFAULT_GRACE,
            timeout: None,
            cancel: CancellationToken::new(),
        }
    }
}

/// A signal, by name, so no backend depends on the host's numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Signal {
    Hup,
    Int,
    Quit,
    Kill,
    Usr1,
    Usr2,
    Term,
    Cont,
    Stop,
    Tstp,
    Winch,
}

impl Signal {
    /// The Linux signal number.
    pub fn number(self) -> i32 {
        match self {
            Self::Hup => libc::SIGHUP,
            Self::Int => libc::SIGINT,
            Self::Quit => libc::SIGQUIT,
            Self::Kill => libc::SIGKILL,
            Self::Usr1 => libc::SIGUSR1,
            Self::Usr2 => libc::SIGUSR2,
            Self::Term => libc::SIGTERM,
            Self::Cont => libc::SIGCONT,
            Self::Stop => libc::SIGSTOP,
            Self::Tstp => libc::SIGTSTP,
            Self::Winch => libc::SIGWINCH,
        }
    }

    /// The conventional name, `SIGINT` style.
    pub fn name(self) -> &'static str {
        match self {
            Self::Hup => "SIGHUP",
            Self::Int => "SIGINT",
            Self::Quit => "SIGQUIT",
            Self::Kill => "SIGKILL",
            Self::Usr1 => "SIGUSR1",
            Self::Usr2 => "SIGUSR2",
            Self::Term => "SIGTERM",
            Self::Cont => "SIGCONT",
            Self::Stop => "SIGSTOP",
            Self::Tstp => "SIGTSTP",
            Self::Winch => "SIGWINCH",
        }
    }
}

/// How the backend saw the process end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawExit {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    /// The backend lost the process: its sandbox went away (killed, paused) or the
    /// connection to it broke before the end was reported. How it ended is unknown.
    pub lost: bool,
}

/// A subprocess error. Each variant says what the caller can do about it.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The spec is malformed (for example an empty argv). Fix it; retrying will not help.
    #[error("invalid spawn spec: {0}")]
    InvalidSpec(String),
    /// The working directory does not exist or is not a directory. Create it or pick
    /// another.
    #[error("working directory does not exist: {0}")]
    CwdNotFound(PathBuf),
    /// The program could not be started (not found, not executable...). Check `argv[0]`
    /// and the `PATH` in the spec's environment.
    #[error("cannot start {program}: {source}")]
    SpawnFailed {
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// Stdin is not a pipe, or it was already closed. Spawn with [`StdinMode::Pipe`].
    #[error("stdin is not open")]
    StdinClosed,
    /// The process (and its whole group) has already ended. Nothing to signal.
    #[error("process has exited")]
    Exited,
    /// The backend is gone (sandbox killed, connection lost). Reconnect or recreate it;
    /// live processes do not survive a reconnect.
    #[error("process backend unavailable: {0}")]
    Unavailable(String),
    /// Any other I/O failure.
    #[error("process i/o: {0}")]
    Io(#[from] std::io::Error),
}

/// The backend's control over one running process group.
pub trait ProcessControl: Send + Sync + 'static {
    /// Delivers `signal` to every process in the group ([`ProcessError::Exited`] when the
    /// group is empty).
    fn signal_group(&self, signal: Signal) -> BoxFuture<'_, Result<(), ProcessError>>;
    /// Writes to stdin (when it is a pipe).
    fn write_stdin<'a>(&'a self, data: &'a [u8]) -> BoxFuture<'a, Result<(), ProcessError>>;
    /// Closes stdin, so the process reads end of file.
    fn close_stdin(&self) -> BoxFuture<'_, Result<(), ProcessError>>;
}

/// What a backend hands to [`Process::start`].
pub struct ProcessParts {
    pub pid: u32,
    pub control: Arc<dyn ProcessControl>,
    /// Filled by the backend and closed at end of stream.
    pub stdout: OutputBuffer,
    pub stderr: OutputBuffer,
    /// Set once the group leader has exited.
    pub exit: watch::Receiver<Option<RawExit>>,
}

/// Starts processes in the sandbox.
///
/// Object-safe: hold it as `Arc<dyn Subprocess>`.
pub trait Subprocess: Send + Sync {
    /// Starts `spec` as the leader of its own session and process group.
    fn spawn(&self, spec: SpawnSpec) -> BoxFuture<'_, Result<Process, ProcessError>>;
}

/// A running (or finished) process group. Dropping the handle terminates the group.
pub struct Process {
    pid: u32,
    control: Arc<dyn ProcessControl>,
    stdout: OutputBuffer,
    stderr: OutputBuffer,
    lifecycle: Lifecycle,
}

struct GroupStopper(Arc<dyn ProcessControl>);

impl Stopper for GroupStopper {
    fn polite(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let _ = self.0.signal_group(Signal::Term).await;
            // A stopped process only sees TERM once continued.
            let _ = self.0.signal_group(Signal::Cont).await;
        })
    }

    fn kill(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let _ = self.0.signal_group(Signal::Kill).await;
        })
    }
}

impl Process {
    /// Wraps a backend's freshly spawned process and starts supervising it with the
    /// spec's grace, timeout and cancellation.
    pub fn start(parts: ProcessParts, spec: &SpawnSpec) -> Self {
        let ProcessParts { pid, control, stdout, stderr, exit } = parts;
        let lifecycle = Lifecycle::start(
            Arc::new(GroupStopper(Arc::clone(&control))),
            Supervision {
                exit,
                outputs: vec![stdout.clone(), stderr.clone()],
                grace: spec.grace,
                timeout: spec.timeout,
                cancel: spec.cancel.clone(),
            },
        );
        Self { pid, control, stdout, stderr, lifecycle }
    }

    /// The leader's pid, which is also the process group id and the session id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Captured stdout, readable from offsets while the process runs.
    pub fn stdout(&self) -> &OutputBuffer {
        &self.stdout
    }

    /// Captured stderr, readable from offsets while the process runs.
    pub fn stderr(&self) -> &OutputBuffer {
        &self.stderr
    }

    /// Writes to stdin ([`StdinMode::Pipe`] only).
    pub async fn write_stdin(&self, data: &[u8]) -> Result<(), ProcessError> {
        self.control.write_stdin(data).await
    }

    /// Closes stdin.
    pub async fn close_stdin(&self) -> Result<(), ProcessError> {
        self.control.close_stdin().await
    }

    /// Sends `signal` to the whole group.
    pub async fn signal(&self, signal: Signal) -> Result<(), ProcessError> {
        self.control.signal_group(signal).await
    }

    /// Waits for the leader to exit (and its output to be read, for a short while).
    pub async fn wait(&self) -> ExitStatus {
        self.lifecycle.wait().await
    }

    /// The exit status, if the process has ended.
    pub fn try_wait(&self) -> Option<ExitStatus> {
        self.lifecycle.try_status()
    }

    /// TERM to the whole group, the spec's grace, KILL to the whole group, then the exit
    /// status. After a normal exit, kills whatever the leader left in its group.
    pub async fn terminate(&self) -> ExitStatus {
        self.lifecycle.terminate().await
    }
}

impl std::fmt::Debug for Process {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Process").field("pid", &self.pid).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    //! The shared supervision against a fake backend: what an RPC backend relies on.

    use std::sync::Mutex;

    use super::*;

    /// Records signals; obeys KILL (and TERM unless told to ignore it).
    struct FakeControl {
        signals: Mutex<Vec<Signal>>,
        exit: watch::Sender<Option<RawExit>>,
        ignore_term: bool,
    }

    impl ProcessControl for FakeControl {
        fn signal_group(&self, signal: Signal) -> BoxFuture<'_, Result<(), ProcessError>> {
            Box::pin(async move {
                self.signals.lock().unwrap().push(signal);
                let dies = signal == Signal::Kill || (signal == Signal::Term && !self.ignore_term);
                if dies {
                    // Like a real process, it exits once.
                    let raw = RawExit { code: None, signal: Some(signal.number()), lost: false };
                    self.exit
                        .send_if_modified(|exit| exit.is_none() && exit.replace(raw).is_none());
                }
                Ok(())
            })
        }

        fn write_stdin<'a>(&'a self, _: &'a [u8]) -> BoxFuture<'a, Result<(), ProcessError>> {
            Box::pin(async { Err(ProcessError::StdinClosed) })
        }

        fn close_stdin(&self) -> BoxFuture<'_, Result<(), ProcessError>> {
            Box::pin(async { Err(ProcessError::StdinClosed) })
        }
    }

    fn fake(ignore_term: bool, spec: &SpawnSpec) -> (Process, Arc<FakeControl>) {
        let (exit_tx, exit) = watch::channel(None);
        let control =
            Arc::new(FakeControl { signals: Mutex::new(Vec::new()), exit: exit_tx, ignore_term });
        let (stdout, stderr) =
            (OutputBuffer::new(OutputMode::Pipe), OutputBuffer::new(OutputMode::Pipe));
        stdout.close();
        stderr.close();
        let parts = ProcessParts { pid: 42, control: control.clone(), stdout, stderr, exit };
        (Process::start(parts, spec), control)
    }

    fn spec() -> SpawnSpec {
        let mut spec = SpawnSpec::new(["x"], "/", BTreeMap::new());
        spec.grace = Duration::from_millis(50);
        spec
    }

    #[tokio::test]
    async fn terminate_sends_term_then_kill_after_the_grace() {
        let (process, control) = fake(true, &spec());
        let status = process.terminate().await;
        assert_eq!((status.signal, status.reason), (Some(libc::SIGKILL), EndReason::Terminated));
        assert!(status.duration >= Duration::from_millis(50));
        let signals = control.signals.lock().unwrap().clone();
        assert_eq!(signals, [Signal::Term, Signal::Cont, Signal::Kill]);
    }

    #[tokio::test]
    async fn timeout_terminates_and_says_so() {
        let mut spec = spec();
        spec.timeout = Some(Duration::from_millis(20));
        let (process, control) = fake(false, &spec);
        let status = process.wait().await;
        assert_eq!((status.signal, status.reason), (Some(libc::SIGTERM), EndReason::TimedOut));
        // KILL follows anyway, for children that ignored TERM.
        assert_eq!(control.signals.lock().unwrap().last(), Some(&Signal::Kill));
    }

    #[tokio::test]
    async fn dropping_a_finished_process_kills_its_leftovers() {
        let (process, control) = fake(false, &spec());
        control.exit.send_replace(Some(RawExit { code: Some(0), signal: None, lost: false }));
        assert!(process.wait().await.success());
        assert!(control.signals.lock().unwrap().is_empty());
        drop(process);
        let killed = async {
            while control.signals.lock().unwrap().as_slice() != [Signal::Kill] {
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), killed).await.unwrap();
    }
}
