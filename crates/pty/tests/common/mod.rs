//! Helpers shared by the terminal-engine test binaries.

use std::time::{Duration, Instant};

use dsh_pty::engine::TerminalEngine;

/// A foreground job that says when it runs: `job-42` is printed by the job's own `sh`,
/// after the interactive shell's fork has exec'd it, so a SIGINT after that line reaches
/// the job (a forked interactive shell that has not exec'd yet would ignore it).
pub const JOB: &str = "sh -c 'echo job-$((6*7)); exec sleep 30'";

/// Polls the transcript until the job has announced itself (5 s at most).
pub async fn job_announced(engine: &TerminalEngine, owner: &str, id: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if engine.read(owner, id, 0, 100).is_ok_and(|w| w.text.contains("\njob-42")) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}
