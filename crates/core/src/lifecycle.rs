//! The supervision every spawned process gets, whatever the backend: timeout,
//! cancellation, explicit termination and drop all end the whole process group with the
//! same sequence (TERM, grace, KILL), and the exit status is published once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::output::OutputBuffer;
use crate::{BoxFuture, process::RawExit};

/// How long `wait` keeps waiting for output after the process exited: a background
/// child that inherited the pipes could otherwise hold `wait` forever.
const OUTPUT_DRAIN: Duration = Duration::from_millis(250);

/// Why a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// It exited (or was killed) on its own.
    Exited,
    /// The spec's timeout elapsed; the group was terminated.
    TimedOut,
    /// The spec's cancellation token fired; the group was terminated.
    Cancelled,
    /// `terminate()` was called.
    Terminated,
    /// The backend lost the process ([`RawExit::lost`]): its sandbox went away or the
    /// connection to it broke. How it ended is unknown (it is gone with its sandbox).
    Lost,
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitStatus {
    /// The exit code, when it exited normally.
    pub code: Option<i32>,
    /// The signal that killed it, when one did.
    pub signal: Option<i32>,
    /// From spawn to exit.
    pub duration: Duration,
    pub reason: EndReason,
}

impl ExitStatus {
    /// Exited normally with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// The backend's side of stopping a group: deliver the polite signals, or the final one.
pub(crate) trait Stopper: Send + Sync + 'static {
    /// TERM (and whatever else makes the group stop politely).
    fn polite(&self) -> BoxFuture<'_, ()>;
    /// KILL to everything in the group.
    fn kill(&self) -> BoxFuture<'_, ()>;
}

pub(crate) struct Lifecycle {
    status: watch::Receiver<Option<ExitStatus>>,
    terminate: CancellationToken,
    _dropped: DropGuard,
}

pub(crate) struct Supervision {
    pub exit: watch::Receiver<Option<RawExit>>,
    pub outputs: Vec<OutputBuffer>,
    pub grace: Duration,
    pub timeout: Option<Duration>,
    pub cancel: CancellationToken,
}

impl Lifecycle {
    pub fn start(stopper: Arc<dyn Stopper>, supervision: Supervision) -> Self {
        let (status_tx, status) = watch::channel(None);
        let terminate = CancellationToken::new();
        let dropped = CancellationToken::new();
        tokio::spawn(supervise(
            stopper,
            supervision,
            terminate.clone(),
            dropped.clone(),
            status_tx,
        ));
        Self { status, terminate, _dropped: dropped.drop_guard() }
    }

    pub async fn wait(&self) -> ExitStatus {
        let mut status = self.status.clone();
        loop {
            if let Some(done) = *status.borrow_and_update() {
                return done;
            }
            if status.changed().await.is_err() {
                // The supervisor is gone (runtime shutting down): report what is known.
                return (*status.borrow()).unwrap_or(ExitStatus {
                    code: None,
                    signal: None,
                    duration: Duration::ZERO,
                    reason: EndReason::Terminated,
                });
            }
        }
    }

    pub fn try_status(&self) -> Option<ExitStatus> {
        *self.status.borrow()
    }

    pub async fn terminate(&self) -> ExitStatus {
        self.terminate.cancel();
        self.wait().await
    }
}

async fn exited(exit: &mut watch::Receiver<Option<RawExit>>) -> RawExit {
    match exit.wait_for(Option::is_some).await {
        Ok(value) => (*value).unwrap_or_default(),
        Err(_) => RawExit::default(),
    }
}

async fn sleep_or_forever(timeout: Option<Duration>) {
    match timeout {
        Some(timeout) => tokio::time::sleep(timeout).await,
        None => std::future::pending().await,
    }
}

async fn supervise(
    stopper: Arc<dyn Stopper>,
    mut supervision: Supervision,
    terminate: CancellationToken,
    dropped: CancellationToken,
    status_tx: watch::Sender<Option<ExitStatus>>,
) {
    let started = Instant::now();
    let exit = &mut supervision.exit;
    let reason = tokio::select! {
        biased;
        _ = exited(exit) => EndReason::Exited,
        () = supervision.cancel.cancelled() => EndReason::Cancelled,
        () = terminate.cancelled() => EndReason::Terminated,
        () = dropped.cancelled() => EndReason::Terminated,
        () = sleep_or_forever(supervision.timeout) => EndReason::TimedOut,
    };
    let mut early = None;
    if reason != EndReason::Exited {
        stopper.polite().await;
        early = tokio::time::timeout(supervision.grace, exited(exit)).await.ok();
        // Unconditionally: the leader may have obeyed TERM while a child ignored it.
        stopper.kill().await;
    }
    let raw = match early {
        Some(raw) => raw,
        None => exited(exit).await,
    };
    let duration = started.elapsed();
    let drain = all_closed(&supervision.outputs);
    let _ = tokio::time::timeout(OUTPUT_DRAIN, drain).await;
    let reason = if raw.lost { EndReason::Lost } else { reason };
    status_tx.send_replace(Some(ExitStatus {
        code: raw.code,
        signal: raw.signal,
        duration,
        reason,
    }));
    if reason == EndReason::Exited {
        // The leader is gone, but children it left in the group may not be: they die
        // with the handle (or on cancellation).
        tokio::select! {
            () = dropped.cancelled() => {}
            () = supervision.cancel.cancelled() => {}
            () = terminate.cancelled() => {}
        }
        stopper.kill().await;
    }
}

async fn all_closed(outputs: &[OutputBuffer]) {
    for output in outputs {
        output.closed().await;
    }
}
