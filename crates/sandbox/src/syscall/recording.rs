//! The test double: records every call in order and touches nothing.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

use super::{MountFlags, Namespaces, Resource, Syscall};
use crate::ids::IdRange;

/// One recorded system call, with owned arguments. Queries (`read_file`, `exists`) are
/// answered from the double's file table and not recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    Umask(u32),
    Unshare(Namespaces),
    Mount {
        source: Option<PathBuf>,
        target: PathBuf,
        fstype: Option<String>,
        flags: MountFlags,
        data: Option<String>,
    },
    Umount {
        target: PathBuf,
        detach: bool,
    },
    Chdir(PathBuf),
    PivotRoot {
        new_root: PathBuf,
        put_old: PathBuf,
    },
    SetHostname(String),
    LoopbackUp,
    Mkdir {
        path: PathBuf,
        mode: u32,
    },
    Chmod {
        path: PathBuf,
        mode: u32,
    },
    Chown {
        path: PathBuf,
        uid: u32,
        gid: u32,
    },
    Symlink {
        target: PathBuf,
        link: PathBuf,
    },
    CreateFile {
        path: PathBuf,
        mode: u32,
    },
    WriteFile {
        path: PathBuf,
        contents: String,
        mode: u32,
    },
    SetRlimit {
        resource: Resource,
        soft: u64,
        hard: u64,
    },
    CreateUserNamespace(IdRange),
    JoinNetworkNamespace(PathBuf),
    RemoveFile(PathBuf),
    MountIdmapped {
        source: PathBuf,
        target: PathBuf,
        from: Option<IdRange>,
    },
}

type FailRule = (Box<dyn Fn(&Call) -> bool>, i32);

/// Records calls; `files` answers `read_file`/`exists`; `fail_when` injects errors.
#[derive(Default)]
pub struct RecordingSyscall {
    calls: RefCell<Vec<Call>>,
    files: RefCell<BTreeMap<PathBuf, Vec<u8>>>,
    dirs: RefCell<BTreeSet<PathBuf>>,
    fail: RefCell<Vec<FailRule>>,
}

impl RecordingSyscall {
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes `read_file(path)` return `contents` and `exists(path)` true.
    pub fn with_file(self, path: impl Into<PathBuf>, contents: impl Into<Vec<u8>>) -> Self {
        self.files.borrow_mut().insert(path.into(), contents.into());
        self
    }

    /// Makes `mkdir(path)` fail with EEXIST, as for a directory left by an earlier run.
    pub fn with_dir(self, path: impl Into<PathBuf>) -> Self {
        self.dirs.borrow_mut().insert(path.into());
        self
    }

    /// The first call matching `matches` fails with `errno` (and is still recorded).
    pub fn fail_when(self, matches: impl Fn(&Call) -> bool + 'static, errno: i32) -> Self {
        self.fail.borrow_mut().push((Box::new(matches), errno));
        self
    }

    pub fn calls(&self) -> Vec<Call> {
        self.calls.borrow().clone()
    }

    fn record(&self, call: Call) -> io::Result<()> {
        let mut fail = self.fail.borrow_mut();
        let hit = fail.iter().position(|(matches, _)| matches(&call));
        self.calls.borrow_mut().push(call);
        match hit {
            Some(index) => {
                let (_, errno) = fail.remove(index);
                Err(io::Error::from_raw_os_error(errno))
            }
            None => Ok(()),
        }
    }
}

impl Syscall for RecordingSyscall {
    fn umask(&self, mask: u32) -> io::Result<()> {
        self.record(Call::Umask(mask))
    }

    fn unshare(&self, namespaces: Namespaces) -> io::Result<()> {
        self.record(Call::Unshare(namespaces))
    }

    fn mount(
        &self,
        source: Option<&Path>,
        target: &Path,
        fstype: Option<&str>,
        flags: MountFlags,
        data: Option<&str>,
    ) -> io::Result<()> {
        self.record(Call::Mount {
            source: source.map(Path::to_owned),
            target: target.to_owned(),
            fstype: fstype.map(str::to_owned),
            flags,
            data: data.map(str::to_owned),
        })
    }

    fn umount(&self, target: &Path, detach: bool) -> io::Result<()> {
        self.record(Call::Umount { target: target.to_owned(), detach })
    }

    fn chdir(&self, path: &Path) -> io::Result<()> {
        self.record(Call::Chdir(path.to_owned()))
    }

    fn pivot_root(&self, new_root: &Path, put_old: &Path) -> io::Result<()> {
        self.record(Call::PivotRoot { new_root: new_root.to_owned(), put_old: put_old.to_owned() })
    }

    fn set_hostname(&self, name: &str) -> io::Result<()> {
        self.record(Call::SetHostname(name.to_owned()))
    }

    fn loopback_up(&self) -> io::Result<()> {
        self.record(Call::LoopbackUp)
    }

    fn mkdir(&self, path: &Path, mode: u32) -> io::Result<()> {
        self.record(Call::Mkdir { path: path.to_owned(), mode })?;
        if self.dirs.borrow().contains(path) || self.files.borrow().contains_key(path) {
            return Err(io::Error::from_raw_os_error(libc::EEXIST));
        }
        Ok(())
    }

    fn chmod(&self, path: &Path, mode: u32) -> io::Result<()> {
        self.record(Call::Chmod { path: path.to_owned(), mode })
    }

    fn chown(&self, path: &Path, uid: u32, gid: u32) -> io::Result<()> {
        self.record(Call::Chown { path: path.to_owned(), uid, gid })
    }

    fn symlink(&self, target: &Path, link: &Path) -> io::Result<()> {
        self.record(Call::Symlink { target: target.to_owned(), link: link.to_owned() })
    }

    fn create_file(&self, path: &Path, mode: u32) -> io::Result<()> {
        self.record(Call::CreateFile { path: path.to_owned(), mode })
    }

    fn write_file(&self, path: &Path, contents: &[u8], mode: u32) -> io::Result<()> {
        self.record(Call::WriteFile {
            path: path.to_owned(),
            contents: String::from_utf8_lossy(contents).into_owned(),
            mode,
        })
    }

    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .borrow()
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))
    }

    fn read_file_in(&self, root: &Path, path: &Path) -> io::Result<Vec<u8>> {
        self.read_file(&root.join(path.strip_prefix("/").unwrap_or(path)))
    }

    fn join_network_namespace(&self, path: &Path) -> io::Result<()> {
        self.record(Call::JoinNetworkNamespace(path.to_owned()))
    }

    fn is_directory(&self, path: &Path) -> bool {
        self.dirs.borrow().contains(path)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.files.borrow_mut().remove(path);
        self.record(Call::RemoveFile(path.to_owned()))
    }

    fn exists(&self, path: &Path) -> bool {
        self.files.borrow().contains_key(path) || self.dirs.borrow().contains(path)
    }

    fn set_rlimit(&self, resource: Resource, soft: u64, hard: u64) -> io::Result<()> {
        self.record(Call::SetRlimit { resource, soft, hard })
    }

    fn create_user_namespace(&self, ids: IdRange) -> io::Result<()> {
        self.record(Call::CreateUserNamespace(ids))
    }

    fn mount_idmapped(
        &self,
        source: &Path,
        target: &Path,
        from: Option<IdRange>,
    ) -> io::Result<()> {
        self.record(Call::MountIdmapped {
            source: source.to_owned(),
            target: target.to_owned(),
            from,
        })
    }
}
