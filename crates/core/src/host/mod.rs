//! The host backend: the seams on the host operating system, unisolated.
//!
//! Files are the host's files, processes are host processes (each leading its own
//! session and process group), terminals are host PTYs. Nothing is isolated: this backend
//! is for running dsh directly on a machine (or inside a sandbox, as the process that
//! owns it).

mod fs;
mod process;
mod terminal;

use std::os::unix::process::ExitStatusExt;

use crate::process::{ProcessError, RawExit, Signal};

/// The host operating system as a backend: implements [`crate::Fs`],
/// [`crate::Subprocess`] and [`crate::Terminals`].
#[derive(Debug, Clone, Default)]
pub struct Host {
    _private: (),
}

impl Host {
    pub fn new() -> Self {
        Self::default()
    }
}

/// How `child` ends, published once it is reaped (a process's and a terminal's alike).
fn watch_exit(mut child: tokio::process::Child) -> tokio::sync::watch::Receiver<Option<RawExit>> {
    let (exit_tx, exit) = tokio::sync::watch::channel(None);
    tokio::spawn(async move {
        let raw = match child.wait().await {
            Ok(status) => RawExit { code: status.code(), signal: status.signal(), lost: false },
            Err(_) => RawExit::default(),
        };
        exit_tx.send_replace(Some(raw));
    });
    exit
}

/// One live process of this host, as `/proc/<pid>/stat` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostProcess {
    pub pid: u32,
    pub parent: u32,
    pub group: u32,
    /// The kernel's command name (`comm`: the executable's name, at most 15 bytes).
    pub name: String,
}

impl HostProcess {
    /// Parses one `/proc/<pid>/stat` line; `None` for a zombie (or a dead, `X`) process
    /// and for anything that is not such a line. Public so a caller that reads `/proc`
    /// elsewhere (inside a sandbox's pid namespace, through a command) parses it the
    /// same way.
    pub fn from_stat(stat: &str) -> Option<Self> {
        let pid = stat.split_whitespace().next()?.parse().ok()?;
        // The name is in parentheses and may itself contain ')' or spaces.
        let name = stat.get(stat.find('(')? + 1..stat.rfind(')')?)?;
        let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
        let state = fields.next()?;
        let parent = fields.next()?.parse().ok()?;
        let group = fields.next()?.parse().ok()?;
        (state != "Z" && state != "X").then(|| Self { pid, parent, group, name: name.to_owned() })
    }
}

/// The live (not zombie) processes of this host, from `/proc`. Used to check that a group
/// really ended, and by tests of every backend that runs processes on this host (for
/// example to wait until a shell's job has exec'd its program).
pub fn live_processes() -> Vec<HostProcess> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter_map(|stat| HostProcess::from_stat(&stat))
        .collect()
}

/// The live (not zombie) processes of process group `pgid` on this host.
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    live_processes().into_iter().filter(|p| p.group == pgid).map(|p| p.pid).collect()
}

/// Re-reads this host's process table every 20 ms until `check` holds or `timeout`
/// passes; returns whether it held. For callers that must see a process state the kernel
/// reaches asynchronously (a job that has exec'd, a group that has gone).
pub async fn wait_for_processes(
    timeout: std::time::Duration,
    mut check: impl FnMut(&[HostProcess]) -> bool,
) -> bool {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if check(&live_processes()) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
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
