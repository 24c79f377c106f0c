//! What the cgroup code shares: a sandbox's limits and usage, the hierarchy's version and
//! directories, the errors (each says what to do), and the kernel's numbers.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Limits for one sandbox; None = no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resources {
    pub memory_bytes: Option<u64>,
    /// Swap allowed on top of memory (v1: memsw = memory + swap; v2: memory.swap.max).
    /// Some(0) = no swap.
    ///
    /// Ignored where the kernel does not account swap (v1 without the
    /// `memory.memsw.*` files, v2 without `memory.swap.max`, e.g. booted with
    /// `swapaccount=0`), and on v1 when `memory_bytes` is None, because v1 can only cap
    /// memory and swap together.
    pub swap_bytes: Option<u64>,
    pub pids: Option<u64>,
    /// CPU bandwidth in thousandths of a CPU (1000 = one full CPU): quota/period with
    /// period 100 ms. At least 10 (the kernel's smallest quota is 1 ms per period).
    pub cpu_millis: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Version {
    V1,
    V2,
}

/// What was used by one sandbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub memory_bytes: u64,
    /// Of `memory_bytes`, the page cache (file-backed pages the kernel may drop).
    pub memory_cache_bytes: u64,
    /// The sandbox's own memory limit (None = unlimited; a limit of an ancestor still applies).
    pub memory_limit_bytes: Option<u64>,
    pub cpu_usage_usec: u64,
    /// Includes exited processes that have not been reaped yet: the pids controller only
    /// lets a process go when its parent has waited for it.
    pub pids: u64,
    pub oom_kills: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    /// A sandbox (or parent) name must be one plain path component.
    #[error("invalid cgroup name {name:?}: {reason}")]
    InvalidName { name: String, reason: &'static str },

    /// A limit the kernel cannot express; fix the resources.
    #[error("invalid {limit} {value}: {reason}")]
    InvalidLimit { limit: &'static str, value: u64, reason: &'static str },

    #[error(
        "no cgroup filesystem is mounted (nothing of type cgroup or cgroup2 in \
         /proc/self/mountinfo): mount cgroup v2 with `mount -t cgroup2 none /sys/fs/cgroup`"
    )]
    NotMounted,

    /// The hierarchy lacks controllers the sandboxes need; `hint` says where to add them.
    #[error("no {}: {hint}", controllers_phrase(.missing))]
    MissingControllers { version: Version, missing: Vec<&'static str>, hint: String },

    /// This process's own cgroup cannot be found or used as the place for sandboxes.
    #[error("cannot place sandboxes under this process's cgroup: {reason}")]
    OwnCgroup { reason: String },

    /// cgroup v2 only enables controllers on a cgroup without processes of its own.
    #[error(
        "cannot enable controllers in {}/cgroup.subtree_control: processes {pids:?} are still in \
         {} and cgroup v2 allows controllers only on cgroups without processes; run the daemon \
         in a cgroup of its own (systemd: a service with Delegate=yes)",
        .path.display(), .path.display()
    )]
    InternalProcesses { path: PathBuf, pids: Vec<u32> },

    /// `remove` found the cgroup still in use after waiting.
    #[error(
        "cannot remove cgroup {}: still in use after {:?} (processes {pids:?}); kill them first \
         (SandboxCgroup::kill_all) and wait for them",
        .path.display(), WAIT
    )]
    Busy { path: PathBuf, pids: Vec<u32> },

    /// `kill_all` sent SIGKILL, but processes stayed.
    #[error(
        "processes {pids:?} of cgroup {} were still there {:?} after SIGKILL (stuck in the \
         kernel, e.g. in uninterruptible I/O); try again later",
        .path.display(), WAIT
    )]
    Unkillable { path: PathBuf, pids: Vec<u32> },

    #[error("{action} {}: {source}{}", .path.display(), io_hint(.source))]
    Io {
        action: String,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("cannot parse {}: {reason}", .path.display())]
    Parse { path: PathBuf, reason: String },
}

pub(super) type Result<T, E = CgroupError> = std::result::Result<T, E>;

/// The CFS period every sandbox gets; `cpu_millis` scales the quota against it.
pub(super) const CPU_PERIOD_US: u64 = 100_000;
/// The kernel refuses quotas below 1 ms.
pub(super) const MIN_CPU_QUOTA_US: u64 = 1_000;
/// The kernel's largest quota (`max_cfs_runtime`, 2^44 - 1 µs); larger writes get EINVAL.
pub(super) const MAX_CPU_QUOTA_US: u64 = (1 << 44) - 1;
/// The leaf a v2 daemon moves into so that its own cgroup may enable controllers.
pub(super) const DAEMON_LEAF: &str = "dsh-daemon";
/// The v1 controllers a sandbox uses, in the order their directories are listed.
pub(super) const V1_CONTROLLERS: [&str; 4] = ["memory", "pids", "cpu", "cpuacct"];
/// The v2 controllers a sandbox uses (v2's cpu controller also does the accounting).
pub(super) const V2_CONTROLLERS: [&str; 3] = ["memory", "pids", "cpu"];
/// How long `kill_all` and `remove` wait for the kernel to let exited tasks go.
pub(super) const WAIT: Duration = Duration::from_secs(2);
pub(super) const POLL: Duration = Duration::from_millis(10);

/// Directories of one cgroup: one per controller on v1 (co-mounted controllers share
/// one), one on v2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Dirs {
    /// `freezer` when that hierarchy is mounted: pausing with memory needs it, nothing
    /// else does.
    V1 {
        memory: PathBuf,
        pids: PathBuf,
        cpu: PathBuf,
        cpuacct: PathBuf,
        freezer: Option<PathBuf>,
    },
    V2(PathBuf),
}

impl Dirs {
    pub(super) fn join(&self, name: &str) -> Dirs {
        match self {
            Dirs::V1 { memory, pids, cpu, cpuacct, freezer } => Dirs::V1 {
                memory: memory.join(name),
                pids: pids.join(name),
                cpu: cpu.join(name),
                cpuacct: cpuacct.join(name),
                freezer: freezer.as_ref().map(|dir| dir.join(name)),
            },
            Dirs::V2(dir) => Dirs::V2(dir.join(name)),
        }
    }

    /// The same cgroup under another name (each directory's last component).
    pub(super) fn renamed(&self, name: &str) -> Dirs {
        let rename = |dir: &PathBuf| dir.with_file_name(name);
        match self {
            Dirs::V1 { memory, pids, cpu, cpuacct, freezer } => Dirs::V1 {
                memory: rename(memory),
                pids: rename(pids),
                cpu: rename(cpu),
                cpuacct: rename(cpuacct),
                freezer: freezer.as_ref().map(rename),
            },
            Dirs::V2(dir) => Dirs::V2(rename(dir)),
        }
    }

    pub(super) fn distinct(&self) -> Vec<PathBuf> {
        match self {
            Dirs::V1 { memory, pids, cpu, cpuacct, freezer } => {
                let mut out: Vec<PathBuf> = Vec::new();
                for dir in [memory, pids, cpu, cpuacct].into_iter().chain(freezer) {
                    if !out.contains(dir) {
                        out.push(dir.clone());
                    }
                }
                out
            }
            Dirs::V2(dir) => vec![dir.clone()],
        }
    }

    pub(super) fn version(&self) -> Version {
        match self {
            Dirs::V1 { .. } => Version::V1,
            Dirs::V2(_) => Version::V2,
        }
    }
}

pub(super) fn controllers_phrase(controllers: &[&str]) -> String {
    match controllers {
        [one] => format!("{one} controller"),
        _ => format!("{} controllers", and_list(controllers)),
    }
}

/// "a", "a and b", "a, b and c".
pub(super) fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

pub(super) fn io_hint(err: &io::Error) -> &'static str {
    match err.raw_os_error() {
        Some(libc::EACCES | libc::EPERM) => {
            " (run the daemon as root, or give it a cgroup of its own to manage: systemd \
             Delegate=yes)"
        }
        Some(libc::EROFS) => {
            " (the cgroup filesystem is mounted read-only: mount it read-write, e.g. give the \
             container a writable cgroup mount)"
        }
        _ => "",
    }
}
