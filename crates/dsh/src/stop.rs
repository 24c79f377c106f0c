//! SIGINT and SIGTERM, listened for from the moment a command starts.
//!
//! Installed before a server binds or prints its banner: a signal that arrives while it
//! starts up is kept for the first `recv` instead of killing the process by the default
//! action (which would skip pausing sandboxes and disposing engines), or being swallowed
//! between two waits.

use tokio::signal::unix::{Signal, SignalKind, signal};

pub struct StopSignals {
    interrupt: Signal,
    terminate: Signal,
}

impl StopSignals {
    /// Installs the handlers now (needs a tokio runtime).
    pub fn install() -> anyhow::Result<Self> {
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// Waits for the next SIGINT or SIGTERM; returns its name.
    pub async fn recv(&mut self) -> &'static str {
        tokio::select! {
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.terminate.recv() => "SIGTERM",
        }
    }
}
