//! The local backend: the seams on the host operating system.
//!
//! Files are the host's files, processes are host processes (each leading its own
//! session and process group), terminals are host PTYs. Nothing is isolated: this backend
//! is for running dsh directly on a machine (or inside a sandbox, as the process that
//! owns it).

mod fs;
mod process;
mod terminal;

use crate::process::{ProcessError, Signal};

/// The host operating system as a backend: implements [`crate::Fs`],
/// [`crate::Subprocess`] and [`crate::Terminals`].
#[derive(Debug, Clone, Default)]
pub struct Local {
    _private: (),
}

impl Local {
    pub fn new() -> Self {
        Self::default()
    }
}

/// The live (not zombie) processes of process group `pgid` on this host, from `/proc`.
/// Used to check that a group really ended (and by tests of every backend that runs
/// processes on this host).
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_string_lossy().parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The command is in parentheses and may contain spaces: parse after the last ')'.
            let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
            let state = fields.next()?;
            let _ppid = fields.next()?;
            let group: u32 = fields.next()?.parse().ok()?;
            (group == pgid && state != "Z" && state != "X").then_some(pid)
        })
        .collect()
}

/// Sends `signal` to process group `pgid`.
fn signal_group(pgid: u32, signal: Signal) -> Result<(), ProcessError> {
    let pid = i32::try_from(pgid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .ok_or_else(|| ProcessError::InvalidSpec(format!("not a process group id: {pgid}")))?;
    let signal = rustix::process::Signal::from_named_raw(signal.number()).ok_or_else(|| {
        ProcessError::InvalidSpec(format!("unsupported signal {}", signal.name()))
    })?;
    match rustix::process::kill_process_group(pid, signal) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::SRCH) => Err(ProcessError::Exited),
        Err(errno) => Err(ProcessError::Io(errno.into())),
    }
}
