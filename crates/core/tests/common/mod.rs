//! Helpers shared by the integration tests.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::{Duration, Instant};

/// A minimal, explicit environment: no shell init files, no host secrets.
pub fn clean_env() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("PATH".to_string(), "/usr/local/bin:/usr/bin:/bin".to_string()),
        ("HOME".to_string(), "/tmp".to_string()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
    ])
}

/// One line of `/proc/<pid>/stat`: (pid, state, pgid).
fn proc_stat(pid: &str) -> Option<(u32, char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces: parse after the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgid = fields.next()?.parse().ok()?;
    Some((pid.parse().ok()?, state, pgid))
}

/// Live (non-zombie) processes whose process group is `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| proc_stat(&entry.file_name().to_string_lossy()))
        .filter(|&(_, state, group)| group == pgid && state != 'Z' && state != 'X')
        .map(|(pid, _, _)| pid)
        .collect()
}

/// Polls `check` until it holds or `timeout` passes; returns whether it held.
pub async fn eventually<F, Fut>(timeout: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if check().await {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
