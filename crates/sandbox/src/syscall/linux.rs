//! The real implementation. It runs only inside the single-threaded sandbox init.

use std::cell::RefCell;
use std::ffi::CString;
use std::fs;
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use rustix::fs::{Gid, Mode, Uid};
use rustix::process::{Resource as RustixResource, Rlimit};

use super::{MountFlags, Namespaces, Resource, Syscall};
use crate::ids::IdRange;

/// The real system calls. Holds the user namespace made by
/// [`Syscall::create_user_namespace`], which the init hands to the payload.
#[derive(Debug, Default)]
pub struct LinuxSyscall {
    user_namespace: RefCell<Option<OwnedFd>>,
    /// The block of that namespace, for shifted idmapped mounts.
    ids: std::cell::Cell<Option<IdRange>>,
}

impl LinuxSyscall {
    pub fn new() -> Self {
        Self::default()
    }

    /// The user namespace created by the plan, if any (close-on-exec).
    pub fn user_namespace(&self) -> Option<RawFd> {
        self.user_namespace.borrow().as_ref().map(AsRawFd::as_raw_fd)
    }
}

// Constants of the mount API (linux/mount.h), not all in the libc crate.
const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
const MOUNT_ATTR_IDMAP: u64 = 0x0010_0000;

/// `struct mount_attr` of mount_setattr(2).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: both descriptors were just opened and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// A helper child that unshares a user namespace and stays in it until `release` is
/// closed. It reports its host pid (read from the host's `/proc/self`, since our own
/// pid namespace numbers it differently) so the parent can write its id maps.
fn user_namespace_holder(report: &OwnedFd, release: &OwnedFd) -> io::Result<libc::pid_t> {
    // SAFETY: the child of a fork (the init's, or of the daemon, which has threads) makes
    // only plain system calls on descriptors it holds and leaves with _exit.
    let pid = unsafe { libc::fork() };
    if pid == -1 {
        return Err(io::Error::last_os_error());
    }
    if pid > 0 {
        return Ok(pid);
    }
    // SAFETY: child side: raw system calls on descriptors we hold, then _exit.
    unsafe {
        // Only the parent's copies of the pipes' other ends may stay open, or neither side
        // sees EOF. Nor may this child hold any other descriptor: one of another
        // thread's holder pipes (forked while that call was under way) would keep that
        // call waiting for an EOF that comes only once this child ends, which waits for
        // its own call. So every descriptor but its two ends is closed.
        let (low, high) = {
            let (a, b) = (report.as_raw_fd() as libc::c_uint, release.as_raw_fd() as libc::c_uint);
            (a.min(b), a.max(b))
        };
        let close_range = |first: libc::c_uint, last: libc::c_uint| {
            if first <= last {
                libc::syscall(libc::SYS_close_range, first, last, 0);
            }
        };
        close_range(3, low.saturating_sub(1));
        close_range(low + 1, high - 1);
        close_range(high + 1, libc::c_uint::MAX);
        let mut message = [0u8; 32];
        let mut len = 0;
        if libc::unshare(libc::CLONE_NEWUSER) == 0 {
            let n = libc::readlink(c"/proc/self".as_ptr(), message.as_mut_ptr().cast(), 31);
            if n > 0 {
                len = n as usize;
            }
        }
        libc::write(report.as_raw_fd(), message.as_ptr().cast(), len);
        libc::close(report.as_raw_fd());
        let mut byte = 0u8;
        libc::read(release.as_raw_fd(), (&raw mut byte).cast(), 1);
        libc::_exit(0)
    }
}

fn wait_child(pid: libc::pid_t) {
    let mut status = 0;
    // SAFETY: waitpid writes only into `status`.
    while unsafe { libc::waitpid(pid, &mut status, 0) } == -1
        && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
    {}
}

/// A user namespace mapping each `(inside, outside, count)` of `map` (uids and gids
/// alike), held by our descriptor.
fn open_user_namespace(map: &[(u32, u32, u32)]) -> io::Result<OwnedFd> {
    let (report_read, report_write) = pipe()?;
    let (release_read, release_write) = pipe()?;
    let pid = user_namespace_holder(&report_write, &release_read)?;
    drop((report_write, release_read));
    let result = (|| {
        let mut message = Vec::new();
        io::Read::read_to_end(&mut fs::File::from(report_read), &mut message)?;
        let host_pid = std::str::from_utf8(&message)
            .ok()
            .and_then(|text| text.parse::<u32>().ok())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    "the kernel refused to create a user namespace",
                )
            })?;
        let map: String = map
            .iter()
            .map(|(inside, outside, count)| format!("{inside} {outside} {count}\n"))
            .collect();
        fs::write(format!("/proc/{host_pid}/uid_map"), &map)?;
        fs::write(format!("/proc/{host_pid}/gid_map"), &map)?;
        fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_CLOEXEC)
            .open(format!("/proc/{host_pid}/ns/user"))
            .map(OwnedFd::from)
    })();
    // Closing the release pipe lets the holder exit; the namespace lives on in our fd.
    drop(release_write);
    wait_child(pid);
    result
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}

fn c_str(text: &str) -> io::Result<CString> {
    CString::new(text)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "string contains a NUL byte"))
}

fn check(ret: libc::c_int) -> io::Result<()> {
    if ret == -1 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

fn mode(bits: u32) -> Mode {
    Mode::from_raw_mode(bits)
}

impl Syscall for LinuxSyscall {
    fn umask(&self, mask: u32) -> io::Result<()> {
        rustix::process::umask(mode(mask));
        Ok(())
    }

    fn unshare(&self, namespaces: Namespaces) -> io::Result<()> {
        // SAFETY: unshare only changes this process's namespaces; the init is
        // single-threaded, so no other thread can be surprised by it.
        check(unsafe { libc::unshare(namespaces.clone_flags()) })
    }

    fn join_network_namespace(&self, path: &Path) -> io::Result<()> {
        let namespace = fs::File::open(path)?;
        // SAFETY: setns with a descriptor we just opened; the init is single-threaded.
        check(unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) })
    }

    fn mount(
        &self,
        source: Option<&Path>,
        target: &Path,
        fstype: Option<&str>,
        flags: MountFlags,
        data: Option<&str>,
    ) -> io::Result<()> {
        let source = source.map(c_path).transpose()?;
        let target = c_path(target)?;
        let fstype = fstype.map(c_str).transpose()?;
        let data = data.map(c_str).transpose()?;
        // SAFETY: every pointer is a valid NUL-terminated string or null, alive for the call.
        check(unsafe {
            libc::mount(
                source.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
                target.as_ptr(),
                fstype.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
                flags.bits() as libc::c_ulong,
                data.as_ref().map_or(std::ptr::null(), |s| s.as_ptr().cast()),
            )
        })
    }

    fn umount(&self, target: &Path, detach: bool) -> io::Result<()> {
        let target = c_path(target)?;
        let flags = if detach { libc::MNT_DETACH } else { 0 };
        // SAFETY: target is a valid NUL-terminated string.
        check(unsafe { libc::umount2(target.as_ptr(), flags) })
    }

    fn chdir(&self, path: &Path) -> io::Result<()> {
        rustix::process::chdir(path).map_err(io::Error::from)
    }

    fn pivot_root(&self, new_root: &Path, put_old: &Path) -> io::Result<()> {
        rustix::process::pivot_root(new_root, put_old).map_err(io::Error::from)
    }

    fn set_hostname(&self, name: &str) -> io::Result<()> {
        rustix::system::sethostname(name.as_bytes()).map_err(io::Error::from)
    }

    fn loopback_up(&self) -> io::Result<()> {
        // SAFETY: plain socket(2); the fd is closed below on every path.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: ifreq is plain old data; all-zero is a valid value.
        let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
        for (dst, src) in req.ifr_name.iter_mut().zip(b"lo\0") {
            *dst = *src as libc::c_char;
        }
        // SAFETY: fd is a socket and req a properly sized ifreq for SIOC[GS]IFFLAGS.
        let result = unsafe {
            check(libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut req)).and_then(|()| {
                req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
                check(libc::ioctl(fd, libc::SIOCSIFFLAGS, &req))
            })
        };
        // SAFETY: fd was opened above and is not used afterwards.
        unsafe { libc::close(fd) };
        result
    }

    fn mkdir(&self, path: &Path, mode_bits: u32) -> io::Result<()> {
        rustix::fs::mkdir(path, mode(mode_bits)).map_err(io::Error::from)
    }

    fn chmod(&self, path: &Path, mode_bits: u32) -> io::Result<()> {
        // The state directory holds what the sandbox wrote: a symlink there must never
        // make host root change the mode of whatever it points to.
        let flags = rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::DIRECTORY
            | rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::CLOEXEC;
        let dir = rustix::fs::open(path, flags, Mode::empty())?;
        rustix::fs::fchmod(&dir, mode(mode_bits)).map_err(io::Error::from)
    }

    fn chown(&self, path: &Path, uid: u32, gid: u32) -> io::Result<()> {
        rustix::fs::chownat(
            rustix::fs::CWD,
            path,
            Some(Uid::from_raw(uid)),
            Some(Gid::from_raw(gid)),
            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
        )
        .map_err(io::Error::from)
    }

    fn is_directory(&self, path: &Path) -> bool {
        fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir())
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn symlink(&self, target: &Path, link: &Path) -> io::Result<()> {
        rustix::fs::symlink(target, link).map_err(io::Error::from)
    }

    fn create_file(&self, path: &Path, mode_bits: u32) -> io::Result<()> {
        fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(mode_bits)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .map(drop)
    }

    fn write_file(&self, path: &Path, contents: &[u8], mode_bits: u32) -> io::Result<()> {
        // Whatever the sandbox left there instead of a file (a symlink, a fifo) goes.
        if fs::symlink_metadata(path).is_ok_and(|meta| !meta.is_file() && !meta.is_dir()) {
            fs::remove_file(path)?;
        }
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode_bits)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)?;
        file.write_all(contents)?;
        file.set_permissions(fs::Permissions::from_mode(mode_bits))
    }

    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        fs::read(path)
    }

    fn read_file_in(&self, root: &Path, path: &Path) -> io::Result<Vec<u8>> {
        use rustix::fs::{OFlags, ResolveFlags};
        use std::io::Read as _;
        let dir = rustix::fs::open(
            root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let relative = path.strip_prefix("/").unwrap_or(path);
        let fd = rustix::fs::openat2(
            &dir,
            relative,
            OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK,
            Mode::empty(),
            ResolveFlags::IN_ROOT | ResolveFlags::NO_MAGICLINKS,
        )?;
        let file = fs::File::from(fd);
        if !file.metadata()?.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} in {} is not a regular file", path.display(), root.display()),
            ));
        }
        let mut bytes = Vec::new();
        file.take(super::MAX_READ_IN_ROOT + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > super::MAX_READ_IN_ROOT {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} in {} is over {} bytes",
                    path.display(),
                    root.display(),
                    super::MAX_READ_IN_ROOT
                ),
            ));
        }
        Ok(bytes)
    }

    fn exists(&self, path: &Path) -> bool {
        fs::symlink_metadata(path).is_ok()
    }

    fn set_rlimit(&self, resource: Resource, soft: u64, hard: u64) -> io::Result<()> {
        let resource = match resource {
            Resource::Nproc => RustixResource::Nproc,
            Resource::Nofile => RustixResource::Nofile,
            Resource::Fsize => RustixResource::Fsize,
            Resource::As => RustixResource::As,
        };
        rustix::process::setrlimit(resource, Rlimit { current: Some(soft), maximum: Some(hard) })
            .map_err(io::Error::from)
    }

    fn create_user_namespace(&self, ids: IdRange) -> io::Result<()> {
        let fd = open_user_namespace(&[(0, ids.host_base, IdRange::SIZE)])?;
        *self.user_namespace.borrow_mut() = Some(fd);
        self.ids.set(Some(ids));
        Ok(())
    }

    fn mount_idmapped(
        &self,
        source: &Path,
        target: &Path,
        from: Option<IdRange>,
    ) -> io::Result<()> {
        let user_namespace = self.user_namespace.borrow();
        let (Some(userns), Some(ids)) = (user_namespace.as_ref(), self.ids.get()) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an idmapped mount needs the user namespace created first",
            ));
        };
        // A shifted mount needs a namespace of its own: `from`'s block onto the
        // sandbox's, and host root onto itself so the daemon's own directories in the
        // tree (0700, root's) stay reachable and what it makes there stays root's.
        let shifted = match from {
            Some(from) if from.host_base != 0 => Some(open_user_namespace(&[
                (0, 0, 1),
                (from.host_base, ids.host_base, IdRange::SIZE),
            ])?),
            _ => None,
        };
        let userns = shifted.as_ref().unwrap_or(userns);
        mount_through(source, target, userns)
    }
}

/// Mounts `source` at `target` through a user namespace of `map` (each `(inside,
/// outside, count)`, uids and gids alike): a file stored with id `inside + n` is shown
/// as `outside + n`, and one made through the mount is stored the other way round.
pub fn mount_idmapped_with(
    source: &Path,
    target: &Path,
    map: &[(u32, u32, u32)],
) -> io::Result<()> {
    let userns = open_user_namespace(map)?;
    mount_through(source, target, &userns)
}

fn mount_through(source: &Path, target: &Path, userns: &OwnedFd) -> io::Result<()> {
    {
        let source = c_path(source)?;
        let target = c_path(target)?;
        // SAFETY: open_tree with a valid path; the result is a new descriptor we own.
        let tree = unsafe {
            libc::syscall(
                libc::SYS_open_tree,
                libc::AT_FDCWD,
                source.as_ptr(),
                OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint,
            )
        };
        if tree == -1 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: open_tree returned a fresh descriptor.
        let tree = unsafe { OwnedFd::from_raw_fd(tree as RawFd) };
        idmap(tree.as_fd(), userns.as_raw_fd())?;
        // SAFETY: move_mount of our detached tree onto a valid NUL-terminated path.
        check(unsafe {
            libc::syscall(
                libc::SYS_move_mount,
                tree.as_raw_fd(),
                c"".as_ptr(),
                libc::AT_FDCWD,
                target.as_ptr(),
                MOVE_MOUNT_F_EMPTY_PATH,
            ) as libc::c_int
        })
    }
}

fn idmap(tree: BorrowedFd<'_>, userns: RawFd) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_IDMAP,
        attr_clr: 0,
        propagation: 0,
        userns_fd: userns as u64,
    };
    // SAFETY: mount_setattr on our own tree descriptor with a correctly sized attr.
    check(unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            tree.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        ) as libc::c_int
    })
}
