//! Reading and writing cgroup files with errors that say what to do, listing and killing
//! a tree's processes (by pidfd), removing a tree.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Instant;

use rustix::io::Errno;
use rustix::process::{Pid, PidfdFlags, Signal};

use super::types::*;

pub(super) fn io_error(action: impl Into<String>, path: &Path, source: io::Error) -> CgroupError {
    CgroupError::Io { action: action.into(), path: path.to_path_buf(), source }
}

pub(super) fn read(path: &Path) -> Result<String> {
    fs::read_to_string(path).map_err(|e| io_error("read", path, e))
}

pub(super) fn read_u64(path: &Path) -> Result<u64> {
    let text = read(path)?;
    text.trim().parse().map_err(|_| CgroupError::Parse {
        path: path.to_path_buf(),
        reason: format!("not a number: {:?}", text.trim()),
    })
}

/// Cgroup files take one value per write(2); a missing file is an error, not a new file.
pub(super) fn write(path: &Path, value: &str) -> Result<()> {
    fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|mut file| file.write_all(value.as_bytes()))
        .map_err(|e| io_error(format!("write {value:?} to"), path, e))
}

/// Creates a cgroup directory; false when it already existed (reused).
pub(super) fn mkdir(dir: &Path) -> Result<bool> {
    match fs::create_dir(dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(io_error("create cgroup", dir, e)),
    }
}

/// The pids in a cgroup.procs file; none when the cgroup is gone.
pub(super) fn read_pids(path: &Path) -> Result<Vec<u32>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(text.split_whitespace().filter_map(|p| p.parse().ok()).collect()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(io_error("read", path, e)),
    }
}

/// SIGKILL to each of `pids` still a member of `dirs`. Each process is pinned before its
/// membership is checked, so that a pid that exited and was reused outside the cgroup in
/// between is not killed; one that exits meanwhile (ESRCH) is what was wanted.
pub(super) fn kill_members(dirs: &[PathBuf], pids: &std::collections::BTreeSet<u32>) -> Result<()> {
    let pinned: Vec<(u32, Pinned)> = pids.iter().map(|&pid| (pid, pin(pid))).collect();
    let still = all_pids(dirs)?;
    for (pid, pinned) in pinned {
        if !still.contains(&pid) {
            continue;
        }
        let _ = match (pinned, raw_pid(pid)) {
            (Pinned::Fd(fd), _) => rustix::process::pidfd_send_signal(&fd, Signal::KILL),
            (Pinned::ByNumber, Some(pid)) => rustix::process::kill_process(pid, Signal::KILL),
            (Pinned::Gone, _) | (Pinned::ByNumber, None) => Ok(()),
        };
    }
    Ok(())
}

/// Every pid in the cgroups and the cgroups below them.
pub(super) fn all_pids(dirs: &[PathBuf]) -> Result<BTreeSet<u32>> {
    let mut pids = BTreeSet::new();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        pids.extend(read_pids(&dir.join("cgroup.procs"))?);
        stack.extend(subdirs(&dir)?);
    }
    Ok(pids)
}

pub(super) fn subdirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => {
            return Ok(Vec::new());
        }
        Err(e) => return Err(io_error("list", dir, e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io_error("list", dir, e))?;
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            out.push(entry.path());
        }
    }
    Ok(out)
}

/// Removes a cgroup and the cgroups below it (children first: a cgroup with children
/// cannot go), retrying EBUSY until `deadline`.
pub(super) fn remove_tree(dir: &Path, deadline: Instant) -> Result<()> {
    for child in subdirs(dir)? {
        remove_tree(&child, deadline)?;
    }
    loop {
        match fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                if Instant::now() >= deadline {
                    return Err(CgroupError::Busy {
                        path: dir.to_path_buf(),
                        pids: all_pids(&[dir.to_path_buf()])?.into_iter().collect(),
                    });
                }
                thread::sleep(POLL);
            }
            Err(e) => return Err(io_error("remove cgroup", dir, e)),
        }
    }
}

pub(super) fn raw_pid(pid: u32) -> Option<Pid> {
    i32::try_from(pid).ok().and_then(Pid::from_raw)
}

pub(super) enum Pinned {
    Fd(rustix::fd::OwnedFd),
    /// No pidfd (a kernel before 5.3, or out of descriptors): kill(2) by number is all
    /// there is.
    ByNumber,
    Gone,
}

pub(super) fn pin(pid: u32) -> Pinned {
    let Some(raw) = raw_pid(pid) else { return Pinned::Gone };
    match rustix::process::pidfd_open(raw, PidfdFlags::empty()) {
        Ok(fd) => Pinned::Fd(fd),
        Err(Errno::SRCH) => Pinned::Gone,
        Err(_) => Pinned::ByNumber,
    }
}
