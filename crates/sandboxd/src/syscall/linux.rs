//! The real implementation. It runs only inside the single-threaded sandbox init.

use std::ffi::CString;
use std::fs;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use rustix::fs::{Gid, Mode, Uid};
use rustix::process::{Resource as RustixResource, Rlimit};

use super::{MountFlags, Namespaces, Resource, Syscall};

#[derive(Debug, Clone, Copy, Default)]
pub struct LinuxSyscall;

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
        rustix::fs::chmod(path, mode(mode_bits)).map_err(io::Error::from)
    }

    fn chown(&self, path: &Path, uid: u32, gid: u32) -> io::Result<()> {
        rustix::fs::chown(path, Some(Uid::from_raw(uid)), Some(Gid::from_raw(gid)))
            .map_err(io::Error::from)
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
}
