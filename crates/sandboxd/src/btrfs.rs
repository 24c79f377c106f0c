//! The few btrfs and loop-device operations behind per-sandbox disk quotas: a
//! filesystem image attached to a loop device, one subvolume per sandbox, and a limit on
//! the bytes each subvolume references (a qgroup limit).
//!
//! Direct ioctls rather than `btrfs`/`losetup` processes: each is one system call, and
//! the structures are the kernel's stable UAPI (`linux/btrfs.h`, `linux/loop.h`).
//! Only `mkfs.btrfs` is run as a program (writing a filesystem is its job, not ours).

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `statfs(2)`'s `f_type` of a btrfs filesystem.
const BTRFS_SUPER_MAGIC: i64 = 0x9123_683e;

const IOC_WRITE: u64 = 1;
const IOC_READ: u64 = 2;
const BTRFS_IOCTL_MAGIC: u64 = 0x94;

/// `_IOC(dir, type, nr, size)` of `asm-generic/ioctl.h`.
const fn ioc(dir: u64, ty: u64, nr: u64, size: usize) -> u64 {
    (dir << 30) | ((size as u64) << 16) | (ty << 8) | nr
}

/// `struct btrfs_ioctl_vol_args`: a name within the directory the ioctl is made on.
#[repr(C)]
struct VolArgs {
    fd: i64,
    name: [u8; 4088],
}

/// `struct btrfs_ioctl_vol_args_v2`, for snapshots: the source subvolume's fd, flags,
/// and the new name within the directory the ioctl is made on.
#[repr(C)]
struct VolArgsV2 {
    fd: i64,
    transid: u64,
    flags: u64,
    unused: [u64; 4],
    name: [u8; 4040],
}

/// `struct btrfs_qgroup_limit` inside `struct btrfs_ioctl_qgroup_limit_args`.
#[repr(C)]
#[derive(Default)]
struct QgroupLimitArgs {
    qgroupid: u64,
    flags: u64,
    max_referenced: u64,
    max_exclusive: u64,
    reserved_referenced: u64,
    reserved_exclusive: u64,
}

/// `struct btrfs_ioctl_quota_ctl_args`.
#[repr(C)]
struct QuotaCtlArgs {
    cmd: u64,
    status: u64,
}

const BTRFS_IOC_SUBVOL_CREATE: u64 =
    ioc(IOC_WRITE, BTRFS_IOCTL_MAGIC, 14, std::mem::size_of::<VolArgs>());
const BTRFS_IOC_SNAP_CREATE_V2: u64 =
    ioc(IOC_WRITE, BTRFS_IOCTL_MAGIC, 23, std::mem::size_of::<VolArgsV2>());
const BTRFS_IOC_QUOTA_CTL: u64 =
    ioc(IOC_READ | IOC_WRITE, BTRFS_IOCTL_MAGIC, 40, std::mem::size_of::<QuotaCtlArgs>());
const BTRFS_IOC_QGROUP_LIMIT: u64 =
    ioc(IOC_READ, BTRFS_IOCTL_MAGIC, 43, std::mem::size_of::<QgroupLimitArgs>());
const BTRFS_QUOTA_CTL_ENABLE: u64 = 1;
const BTRFS_QGROUP_LIMIT_MAX_RFER: u64 = 1;

/// Whether `path` lies on a btrfs filesystem.
pub fn is_btrfs(path: &Path) -> io::Result<bool> {
    let stat = rustix::fs::statfs(path)?;
    #[allow(clippy::unnecessary_cast)] // f_type's width differs between libcs
    Ok(stat.f_type as i64 == BTRFS_SUPER_MAGIC)
}

/// Whether `path` is the root of a btrfs subvolume: its inode number is the one every
/// subvolume's root directory has (`BTRFS_FIRST_FREE_OBJECTID`), which no plain directory
/// of a btrfs filesystem gets.
pub fn is_subvolume(path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt as _;
    const BTRFS_FIRST_FREE_OBJECTID: u64 = 256;
    let meta = std::fs::symlink_metadata(path)?;
    Ok(meta.is_dir() && meta.ino() == BTRFS_FIRST_FREE_OBJECTID && is_btrfs(path)?)
}

/// Creates `path` as a new subvolume (its parent must exist, on btrfs).
pub fn create_subvolume(path: &Path) -> io::Result<()> {
    let (parent, name) = split(path)?;
    let mut args = VolArgs { fd: 0, name: [0; 4088] };
    let bytes = name.as_bytes();
    if bytes.len() >= args.name.len() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "subvolume name too long"));
    }
    args.name[..bytes.len()].copy_from_slice(bytes);
    let dir = File::open(parent)?;
    // SAFETY: a valid directory fd and a properly sized, initialized argument struct.
    ioctl(&dir, BTRFS_IOC_SUBVOL_CREATE, &mut args)
}

/// Makes `to` a snapshot of the subvolume `from` (same filesystem): it shares every block
/// with `from` until either side writes, so it costs the same whatever `from` holds.
pub fn snapshot(from: &Path, to: &Path) -> io::Result<()> {
    let (parent, name) = split(to)?;
    let source = File::open(from)?;
    let mut args = VolArgsV2 { fd: 0, transid: 0, flags: 0, unused: [0; 4], name: [0; 4040] };
    let bytes = name.as_bytes();
    if bytes.len() >= args.name.len() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "snapshot name too long"));
    }
    args.name[..bytes.len()].copy_from_slice(bytes);
    args.fd = i64::from(source.as_raw_fd());
    ioctl(&File::open(parent)?, BTRFS_IOC_SNAP_CREATE_V2, &mut args)
}

/// Limits the bytes the subvolume holding `path` references (shared extents included).
pub fn limit_referenced(path: &Path, bytes: u64) -> io::Result<()> {
    let mut args = QgroupLimitArgs {
        // 0: the qgroup of the subvolume the fd is in.
        qgroupid: 0,
        flags: BTRFS_QGROUP_LIMIT_MAX_RFER,
        max_referenced: bytes,
        ..QgroupLimitArgs::default()
    };
    ioctl(&File::open(path)?, BTRFS_IOC_QGROUP_LIMIT, &mut args)
}

/// Turns quota accounting on for the filesystem mounted at `mount`.
pub fn enable_quota(mount: &Path) -> io::Result<()> {
    let mut args = QuotaCtlArgs { cmd: BTRFS_QUOTA_CTL_ENABLE, status: 0 };
    ioctl(&File::open(mount)?, BTRFS_IOC_QUOTA_CTL, &mut args)
}

/// Writes a btrfs filesystem into `image` (an existing file) with `mkfs.btrfs`.
pub fn make_filesystem(image: &Path, timeout: Duration) -> anyhow::Result<()> {
    let mut command = std::process::Command::new("mkfs.btrfs");
    command.args(["-q", "-f"]).arg(image);
    crate::command::run_checked(&mut command, timeout)
}

/// `struct loop_info64`.
#[repr(C)]
struct LoopInfo64 {
    device: u64,
    inode: u64,
    rdevice: u64,
    offset: u64,
    size_limit: u64,
    number: u32,
    encrypt_type: u32,
    encrypt_key_size: u32,
    flags: u32,
    file_name: [u8; 64],
    crypt_name: [u8; 64],
    encrypt_key: [u8; 32],
    init: [u64; 2],
}

/// `struct loop_config`.
#[repr(C)]
struct LoopConfig {
    fd: u32,
    block_size: u32,
    info: LoopInfo64,
    reserved: [u64; 8],
}

const LOOP_CTL_GET_FREE: u64 = 0x4c82;
const LOOP_CONFIGURE: u64 = 0x4c0a;
/// The device detaches itself once nothing uses it (the filesystem is unmounted).
const LO_FLAGS_AUTOCLEAR: u32 = 4;

/// A loop device backed by an image file; the device lives while this handle or a mount
/// of it does (autoclear).
pub struct LoopDevice {
    path: PathBuf,
    _device: File,
}

impl LoopDevice {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Attaches `image` to a free loop device. Another process may take the device the
/// kernel offered first: then the next free one is asked for.
pub fn attach_loop(image: &Path) -> io::Result<LoopDevice> {
    let backing = OpenOptions::new().read(true).write(true).open(image)?;
    let control = OpenOptions::new().read(true).write(true).open("/dev/loop-control")?;
    let mut last = io::Error::other("no loop device");
    for _ in 0..8 {
        // SAFETY: LOOP_CTL_GET_FREE takes no argument and returns a device number.
        let number = unsafe { libc::ioctl(control.as_raw_fd(), LOOP_CTL_GET_FREE as _) };
        if number < 0 {
            return Err(io::Error::last_os_error());
        }
        let path = PathBuf::from(format!("/dev/loop{number}"));
        let device = OpenOptions::new().read(true).write(true).open(&path)?;
        let mut config = LoopConfig {
            fd: u32::try_from(backing.as_raw_fd()).map_err(io::Error::other)?,
            block_size: 0,
            info: LoopInfo64 {
                device: 0,
                inode: 0,
                rdevice: 0,
                offset: 0,
                size_limit: 0,
                number: 0,
                encrypt_type: 0,
                encrypt_key_size: 0,
                flags: LO_FLAGS_AUTOCLEAR,
                file_name: [0; 64],
                crypt_name: [0; 64],
                encrypt_key: [0; 32],
                init: [0; 2],
            },
            reserved: [0; 8],
        };
        let name = image.as_os_str().as_bytes();
        let shown = name.len().min(63);
        config.info.file_name[..shown].copy_from_slice(&name[..shown]);
        match ioctl(&device, LOOP_CONFIGURE, &mut config) {
            Ok(()) => return Ok(LoopDevice { path, _device: device }),
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

fn split(path: &Path) -> io::Result<(&Path, &OsStr)> {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{}", path.display()))),
    }
}

fn ioctl<T>(file: &File, request: u64, arg: &mut T) -> io::Result<()> {
    // SAFETY: callers pass the request's own argument struct, sized as its number says.
    let result = unsafe { libc::ioctl(file.as_raw_fd(), request as _, std::ptr::from_mut(arg)) };
    if result < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request numbers the kernel headers give (`linux/btrfs.h`, `linux/loop.h`).
    #[test]
    fn request_numbers_match_the_kernel_headers() {
        assert_eq!(std::mem::size_of::<VolArgs>(), 4096);
        assert_eq!(std::mem::size_of::<VolArgsV2>(), 4096);
        assert_eq!(BTRFS_IOC_SNAP_CREATE_V2, 0x5000_9417);
        assert_eq!(std::mem::size_of::<LoopInfo64>(), 232);
        assert_eq!(std::mem::size_of::<LoopConfig>(), 304);
        assert_eq!(BTRFS_IOC_SUBVOL_CREATE, 0x5000_940e);
        assert_eq!(BTRFS_IOC_QUOTA_CTL, 0xc010_9428);
        assert_eq!(BTRFS_IOC_QGROUP_LIMIT, 0x8030_942b);
    }
}
