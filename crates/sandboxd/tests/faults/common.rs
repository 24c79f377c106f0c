//! What the fault tests share: the daemon binary as a child that never outlives its
//! test, host-side looks at a sandbox's processes, signals, and bounded waits.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::control::harness::{Client, spawn_daemon_with};

/// The `dsh-sandboxd` binary, SIGKILLed (and reaped) when dropped.
pub struct DaemonChild {
    child: Option<std::process::Child>,
    pub client: Client,
}

impl DaemonChild {
    pub async fn spawn(state: &Path, envd: &Path, extra: &[&str]) -> DaemonChild {
        let (child, client) = spawn_daemon_with(state, envd, extra).await;
        DaemonChild { child: Some(child), client }
    }

    /// SIGKILLs the daemon and reaps it; returns, once it is gone, when the signal went.
    pub fn sigkill(&mut self) -> Instant {
        let sent = Instant::now();
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
        sent
    }
}

impl Drop for DaemonChild {
    fn drop(&mut self) {
        let _ = self.sigkill();
    }
}

/// A stand-in for dsh-envd that never listens (a **fake**): it holds a create or a
/// resume in the daemon's wait for envd's health, which a real envd passes within
/// milliseconds, so the daemon can be killed there on demand. Returns its path.
pub fn fake_envd_that_never_listens(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("fake-envd-never-listens");
    std::fs::write(&path, format!("#!/bin/sh\nexec sleep {FAKE_ENVD_SLEEP}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// What the fake envd becomes once it runs (its command line).
pub const FAKE_ENVD_SLEEP: &str = "3599";

/// `kill(pid, sig)`.
pub fn signal(pid: u32, sig: libc::c_int) {
    // SAFETY: plain kill(2) of a process the test found by its pid just before.
    let done = unsafe { libc::kill(pid as libc::pid_t, sig) };
    assert_eq!(done, 0, "kill({pid}, {sig}): {}", std::io::Error::last_os_error());
}

fn status_field(pid: u32, field: &str) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .map(|value| value.trim().to_owned())
}

/// Whether the process is stopped (SIGSTOP).
pub fn is_stopped(pid: u32) -> bool {
    status_field(pid, "State").is_some_and(|state| state.starts_with('T'))
}

/// Whether `sig` waits, undelivered, for the process (it is stopped or blocks it).
pub fn is_pending(pid: u32, sig: libc::c_int) -> bool {
    let bit = 1u64 << (sig - 1);
    ["ShdPnd", "SigPnd"].iter().any(|field| {
        status_field(pid, field)
            .and_then(|mask| u64::from_str_radix(&mask, 16).ok())
            .is_some_and(|mask| mask & bit != 0)
    })
}

/// Whether the process exists (and is not a zombie).
pub fn is_alive(pid: u32) -> bool {
    status_field(pid, "State").is_some_and(|state| !state.starts_with('Z'))
}

pub fn cmdline(pid: u32) -> Vec<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    raw.split(|&b| b == 0)
        .filter(|arg| !arg.is_empty())
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect()
}

/// The direct children of a process.
pub fn children(pid: u32) -> Vec<u32> {
    let text =
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    text.split_whitespace().filter_map(|p| p.parse().ok()).collect()
}

/// The host pid of sandbox `id`'s envd (the init's child whose command line names the
/// sandbox), if it runs.
pub fn envd_pid(init: u32, id: &str) -> Option<u32> {
    children(init).into_iter().find(|&pid| {
        let args = cmdline(pid);
        args.first().is_some_and(|arg0| arg0.ends_with("/dsh-envd"))
            && args.windows(2).any(|pair| pair[0] == "--sandbox-id" && pair[1] == id)
    })
}

/// A sandbox's record as the daemon wrote it, if there is one.
pub fn record(state: &Path, id: &str) -> Option<Value> {
    let bytes = std::fs::read(state.join(format!("sandboxes/{id}.json"))).ok()?;
    Some(serde_json::from_slice(&bytes).unwrap())
}

/// Ids of every record under `state`.
pub fn record_ids(state: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(state.join("sandboxes")) else { return Vec::new() };
    let mut ids: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".json").map(str::to_owned))
        .filter(|id| !id.starts_with('.'))
        .collect();
    ids.sort();
    ids
}

/// Every message of an error and its sources, outermost first.
pub fn error_chain(err: &(dyn std::error::Error + 'static)) -> Vec<String> {
    let mut chain = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        chain.push(cause.to_string());
        source = cause.source();
    }
    chain
}

/// Polls `check` every millisecond until it gives a value; panics after `timeout`.
pub fn poll<T>(what: &str, timeout: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out after {timeout:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// `future`, or a panic naming `what` after `timeout`.
pub async fn within<T>(what: &str, timeout: Duration, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(timeout, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what} did not finish within {timeout:?}"),
    }
}

/// `(sandboxID, state)` of every sandbox the daemon lists.
pub async fn listed(client: &Client) -> Vec<(String, String)> {
    let reply = within(
        "GET /v2/sandboxes",
        Duration::from_secs(10),
        client.call(reqwest::Method::GET, "/v2/sandboxes", None),
    )
    .await;
    assert_eq!(reply.status, reqwest::StatusCode::OK, "{}", reply.body);
    crate::control::harness::states(&reply.body)
}
