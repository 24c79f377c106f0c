//! Helper programs the daemon runs (`nft`, `pasta`, `mkfs.btrfs`, `cp`): each waited for
//! with a bound, killed past it.

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// Waits for `child` at most `timeout`, killing it past that; returns its output.
pub fn wait_with_timeout(mut child: Child, timeout: Duration) -> anyhow::Result<Output> {
    let deadline = Instant::now() + timeout;
    loop {
        if child.try_wait()?.is_some() {
            return Ok(child.wait_with_output()?);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("timed out after {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Runs `command` (no stdin, stdout discarded) to its end within `timeout`; a failure
/// says which program and what it wrote to stderr.
pub fn run_checked(command: &mut Command, timeout: Duration) -> anyhow::Result<()> {
    let program = command.get_program().to_string_lossy().into_owned();
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("running {program}"))?;
    let output = wait_with_timeout(child, timeout).with_context(|| format!("running {program}"))?;
    if !output.status.success() {
        bail!(
            "{program} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}
