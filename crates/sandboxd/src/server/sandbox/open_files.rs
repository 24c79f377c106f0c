//! How many files one sandbox may hold open: few enough that it cannot exhaust the
//! host's file table, which every other sandbox and every unprivileged host process
//! shares (at `fs.file-max` open files they all get `ENFILE`).
//!
//! Linux has no per-cgroup count of open files. What bounds a sandbox is the product of
//! two limits it cannot raise:
//!
//! - `RLIMIT_NOFILE` (hard), per descriptor table: a process's files, shared by its
//!   threads;
//! - the pids cgroup's `pids.max`: how many tasks, so at most that many tables.
//!
//! A sandbox can therefore hold at most `pids.max × RLIMIT_NOFILE` open files (`dup`
//! shares one open file between descriptors, so it adds nothing to the host's count).
//! The daemon sizes both from the host's `fs.file-max` so that the product stays
//! within half of it: one sandbox can never take the table, and the host keeps the
//! other half. On a host with 24 GiB of memory and no systemd (`file-max` 2,466,093):
//! half is 1,233,046; 1,204 tasks × 1,024 files = 1,232,896. Where systemd raised
//! `file-max` to 2^63-1, the configured tasks (4,096) and 65,536 files per process
//! apply. The memory cgroup adds a third, looser bound: each open file's kernel object
//! (about 256 bytes, accounted to the sandbox) counts against its memory limit, so 1.2
//! million files cost about 300 MiB of it.
//!
//! The per-process limit never goes below 1,024 (what programs expect of a Linux
//! system) nor the tasks below 256; on a host whose `file-max` is under 524,288 (about 5
//! GiB of memory without systemd) those floors win and a sandbox may hold more than
//! half of the table, still less than all of it down to 262,144.

/// Files a process may always hold open (the usual soft limit of a Linux system).
pub const PER_PROCESS_FLOOR: u64 = 1024;
/// Files a process may hold open where the host's table is large enough.
pub const PER_PROCESS_CEILING: u64 = 65_536;
/// Tasks a sandbox always gets: a language server, a build and a test run side by side.
pub const TASKS_FLOOR: u64 = 256;

/// The limits that bound one sandbox's open files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFileBound {
    /// The pids cgroup's `pids.max`.
    pub tasks: u64,
    /// `RLIMIT_NOFILE`, soft and hard.
    pub per_process: u64,
}

impl OpenFileBound {
    /// The limits for a host whose table holds `file_max` open files, when sandboxes are
    /// configured for `tasks` tasks: the tasks lowered if even [`PER_PROCESS_FLOOR`]
    /// files each would pass half the table, then the files per process the rest allows.
    pub fn for_host(file_max: u64, tasks: u64) -> OpenFileBound {
        let share = file_max / 2;
        let tasks = tasks.min((share / PER_PROCESS_FLOOR).max(TASKS_FLOOR)).max(1);
        let per_process = (share / tasks).clamp(PER_PROCESS_FLOOR, PER_PROCESS_CEILING);
        OpenFileBound { tasks, per_process }
    }

    /// The most files one sandbox can hold open.
    pub fn files(self) -> u64 {
        self.tasks.saturating_mul(self.per_process)
    }
}

/// The host's `fs.file-max`.
pub fn host_file_max() -> std::io::Result<u64> {
    let text = std::fs::read_to_string("/proc/sys/fs/file-max")?;
    text.trim().parse().map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("/proc/sys/fs/file-max holds {text:?}, not a number"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sandbox_holds_at_most_half_the_hosts_table() {
        // 24 GiB without systemd (this machine).
        let bound = OpenFileBound::for_host(2_466_093, 4096);
        assert_eq!(bound, OpenFileBound { tasks: 1204, per_process: 1024 });
        assert_eq!(bound.files(), 1_232_896);
        assert!(bound.files() <= 2_466_093 / 2);
        // systemd's file-max: what is configured.
        let bound = OpenFileBound::for_host(i64::MAX as u64, 4096);
        assert_eq!(bound, OpenFileBound { tasks: 4096, per_process: 65_536 });
        // A large table with few tasks: more files per process, up to the ceiling.
        let bound = OpenFileBound::for_host(10_000_000, 1000);
        assert_eq!(bound, OpenFileBound { tasks: 1000, per_process: 5000 });
    }

    #[test]
    fn small_hosts_keep_the_floors_and_still_cannot_fill_the_table() {
        // About 4 GiB without systemd.
        let bound = OpenFileBound::for_host(400_000, 4096);
        assert_eq!(bound, OpenFileBound { tasks: 256, per_process: 1024 });
        assert!(bound.files() < 400_000);
        // A degenerate table: the floors, and no division by zero.
        assert_eq!(
            OpenFileBound::for_host(0, 0),
            OpenFileBound { tasks: 1, per_process: PER_PROCESS_FLOOR }
        );
    }
}
