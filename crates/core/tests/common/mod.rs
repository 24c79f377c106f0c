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

/// Live (non-zombie) processes whose process group is `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    dsh_core::host::live_group_members(pgid)
}

/// Whether some live member of group `pgid` has already exec'd `program`.
///
/// A shell makes the new job the terminal's foreground group in the forked child *before*
/// it execs the program; a SIGINT in that window reaches a copy of the interactive shell,
/// which ignores it, and the program then runs to its end. Tests that interrupt a job wait
/// for the exec first.
pub fn group_runs(pgid: u32, program: &str) -> bool {
    dsh_core::host::live_processes().iter().any(|p| p.group == pgid && p.name == program)
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
