//! The system-call seam (youki's `libcontainer/src/syscall` is the model): everything the
//! sandbox setup does to the system goes through [`Syscall`], so the plan executor can be
//! unit-tested with [`RecordingSyscall`] and run for real with [`LinuxSyscall`].

mod linux;
mod recording;

use std::fmt;
use std::io;
use std::ops::BitOr;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::ids::IdRange;

pub use linux::{LinuxSyscall, mount_idmapped_with};
pub use recording::{Call, RecordingSyscall};

/// The most [`Syscall::read_file_in`] reads (an image's `/etc/passwd` is far smaller).
pub const MAX_READ_IN_ROOT: u64 = 4 << 20;

pub trait Syscall {
    fn umask(&self, mask: u32) -> io::Result<()>;
    fn unshare(&self, namespaces: Namespaces) -> io::Result<()>;
    /// Enters the network namespace pinned at `path`.
    fn join_network_namespace(&self, path: &Path) -> io::Result<()>;
    fn mount(
        &self,
        source: Option<&Path>,
        target: &Path,
        fstype: Option<&str>,
        flags: MountFlags,
        data: Option<&str>,
    ) -> io::Result<()>;
    fn umount(&self, target: &Path, detach: bool) -> io::Result<()>;
    fn chdir(&self, path: &Path) -> io::Result<()>;
    fn pivot_root(&self, new_root: &Path, put_old: &Path) -> io::Result<()>;
    fn set_hostname(&self, name: &str) -> io::Result<()>;
    /// Brings the loopback interface of the current network namespace up.
    fn loopback_up(&self) -> io::Result<()>;
    /// Creates one directory (no parents); fails with `AlreadyExists`/`NotFound` like mkdir(2).
    fn mkdir(&self, path: &Path, mode: u32) -> io::Result<()>;
    /// Sets a directory's mode; fails (never follows) if `path` is a symlink.
    fn chmod(&self, path: &Path, mode: u32) -> io::Result<()>;
    /// Sets the owner of `path` itself, never of a symlink's target.
    fn chown(&self, path: &Path, uid: u32, gid: u32) -> io::Result<()>;
    /// Whether `path` is a directory (not a symlink to one).
    fn is_directory(&self, path: &Path) -> bool;
    /// Removes a file or symlink (not a directory).
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    fn symlink(&self, target: &Path, link: &Path) -> io::Result<()>;
    /// Creates an empty file if there is none (a bind-mount target); never truncates.
    fn create_file(&self, path: &Path, mode: u32) -> io::Result<()>;
    /// Replaces a file's contents (no symlinks followed) and sets its mode.
    fn write_file(&self, path: &Path, contents: &[u8], mode: u32) -> io::Result<()>;
    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Reads the regular file at `path` inside the directory tree `root`, every symlink
    /// and `..` resolved as if `root` were `/` (an image's files: its links must not lead
    /// to the host's), at most [`MAX_READ_IN_ROOT`] bytes, never blocking on a FIFO.
    fn read_file_in(&self, root: &Path, path: &Path) -> io::Result<Vec<u8>>;
    /// Whether anything (even a dangling symlink) is at `path`.
    fn exists(&self, path: &Path) -> bool;
    fn set_rlimit(&self, resource: Resource, soft: u64, hard: u64) -> io::Result<()>;
    /// Creates a user namespace whose uids and gids 0..SIZE are the host block `ids`, and
    /// keeps a handle to it: the caller stays outside (it still needs its host privileges
    /// for the mounts) and the payload enters it later.
    fn create_user_namespace(&self, ids: IdRange) -> io::Result<()>;
    /// Attaches at `target` a copy of the mount at `source` that shows file owners
    /// through that user namespace (host root's files are owned by root inside); with
    /// `from`, the files of that host block are shown as the sandbox's block's, and host
    /// root's as host root's (see [`crate::plan::Step::MountIdmapped`]).
    fn mount_idmapped(&self, source: &Path, target: &Path, from: Option<IdRange>)
    -> io::Result<()>;
}

/// Namespaces to unshare (the pid namespace is created by the launcher's clone).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Namespaces {
    pub mount: bool,
    pub uts: bool,
    pub ipc: bool,
    pub net: bool,
    /// A cgroup namespace rooted at the sandbox's own cgroup (the init is in it before
    /// its plan runs): nothing of the host's cgroup paths shows inside.
    #[serde(default)]
    pub cgroup: bool,
}

impl Namespaces {
    pub fn clone_flags(self) -> libc::c_int {
        let mut flags = 0;
        if self.mount {
            flags |= libc::CLONE_NEWNS;
        }
        if self.uts {
            flags |= libc::CLONE_NEWUTS;
        }
        if self.ipc {
            flags |= libc::CLONE_NEWIPC;
        }
        if self.net {
            flags |= libc::CLONE_NEWNET;
        }
        if self.cgroup {
            flags |= libc::CLONE_NEWCGROUP;
        }
        flags
    }
}

impl fmt::Display for Namespaces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = [
            (self.mount, "mount"),
            (self.uts, "uts"),
            (self.ipc, "ipc"),
            (self.net, "net"),
            (self.cgroup, "cgroup"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        f.write_str(&names.join("|"))
    }
}

/// mount(2) flags, printed by name so plans and recorded calls read well.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MountFlags(u64);

impl MountFlags {
    pub const EMPTY: MountFlags = MountFlags(0);
    pub const RDONLY: MountFlags = MountFlags(libc::MS_RDONLY);
    pub const NOSUID: MountFlags = MountFlags(libc::MS_NOSUID);
    pub const NODEV: MountFlags = MountFlags(libc::MS_NODEV);
    pub const NOEXEC: MountFlags = MountFlags(libc::MS_NOEXEC);
    pub const REMOUNT: MountFlags = MountFlags(libc::MS_REMOUNT);
    pub const BIND: MountFlags = MountFlags(libc::MS_BIND);
    pub const REC: MountFlags = MountFlags(libc::MS_REC);
    pub const PRIVATE: MountFlags = MountFlags(libc::MS_PRIVATE);
    pub const SLAVE: MountFlags = MountFlags(libc::MS_SLAVE);
    pub const SHARED: MountFlags = MountFlags(libc::MS_SHARED);

    const NAMES: [(MountFlags, &'static str); 10] = [
        (Self::RDONLY, "RDONLY"),
        (Self::NOSUID, "NOSUID"),
        (Self::NODEV, "NODEV"),
        (Self::NOEXEC, "NOEXEC"),
        (Self::REMOUNT, "REMOUNT"),
        (Self::BIND, "BIND"),
        (Self::REC, "REC"),
        (Self::PRIVATE, "PRIVATE"),
        (Self::SLAVE, "SLAVE"),
        (Self::SHARED, "SHARED"),
    ];

    pub fn bits(self) -> u64 {
        self.0
    }

    pub fn contains(self, other: MountFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for MountFlags {
    type Output = MountFlags;
    fn bitor(self, rhs: MountFlags) -> MountFlags {
        MountFlags(self.0 | rhs.0)
    }
}

impl fmt::Display for MountFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("0");
        }
        let mut rest = self.0;
        let mut names = Vec::new();
        for (flag, name) in Self::NAMES {
            if self.contains(flag) {
                names.push(name.to_owned());
                rest &= !flag.0;
            }
        }
        if rest != 0 {
            names.push(format!("{rest:#x}"));
        }
        f.write_str(&names.join("|"))
    }
}

impl fmt::Debug for MountFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The rlimits a sandbox sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Resource {
    Nproc,
    Nofile,
    Fsize,
    As,
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Resource::Nproc => "RLIMIT_NPROC",
            Resource::Nofile => "RLIMIT_NOFILE",
            Resource::Fsize => "RLIMIT_FSIZE",
            Resource::As => "RLIMIT_AS",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_namespaces_print_by_name() {
        assert_eq!(
            (MountFlags::BIND | MountFlags::REMOUNT | MountFlags::RDONLY).to_string(),
            "RDONLY|REMOUNT|BIND"
        );
        assert_eq!(MountFlags::EMPTY.to_string(), "0");
        let ns = Namespaces { mount: true, uts: true, ipc: true, net: false, cgroup: false };
        assert_eq!(ns.to_string(), "mount|uts|ipc");
        assert_eq!(ns.clone_flags(), libc::CLONE_NEWNS | libc::CLONE_NEWUTS | libc::CLONE_NEWIPC);
    }
}
